import { useState } from "preact/hooks";

/**
 * Copies `text`; says so for a moment (announced by the live region). `what` names the thing copied
 * for screen readers, after the visible words, so the accessible name still starts with what is seen.
 */
export function CopyButton({ text, label = "Copy", what }: { text: string; label?: string; what?: string }) {
  const [done, setDone] = useState<"" | "ok" | "failed">("");
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setDone("ok");
    } catch {
      setDone("failed");
    }
    setTimeout(() => setDone(""), 2000);
  };
  return (
    <button type="button" class="btn small" onClick={copy}>
      <span aria-live="polite">
        {done === "ok" ? "Copied" : done === "failed" ? "Select and copy" : label}
      </span>
      {what && <span class="sr-only"> {what}</span>}
    </button>
  );
}
