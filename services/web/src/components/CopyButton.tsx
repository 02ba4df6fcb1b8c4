import { useState } from "preact/hooks";

/** Copies `text`; says so for a moment (announced to screen readers by the live region). */
export function CopyButton({
  text,
  label = "Copy",
  class: cls = "",
}: {
  text: string;
  label?: string;
  class?: string;
}) {
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
    <button type="button" class={`btn small ${cls}`} onClick={copy} aria-label={`${label}: ${text}`}>
      <span aria-live="polite">
        {done === "ok" ? "Copied" : done === "failed" ? "Select and copy" : label}
      </span>
    </button>
  );
}
