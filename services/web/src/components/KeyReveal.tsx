import type { CreatedApiKey } from "@kurz/contracts";
import { CopyButton } from "./CopyButton.tsx";

/** The one time a full API key is on screen. */
export function KeyReveal({ apiKey, intro }: { apiKey: CreatedApiKey; intro: string }) {
  return (
    <div class="key-reveal">
      <p>{intro}</p>
      <div class="key-box">
        <code data-testid="full-key">{apiKey.key}</code>
        <CopyButton text={apiKey.key} label="Copy key" />
      </div>
      <p class="hint">
        Use it as <code>Authorization: Bearer …</code>. Kurz keeps only a hash; if you lose it, create a new
        key.
      </p>
    </div>
  );
}
