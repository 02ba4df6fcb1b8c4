import type { CreatedApiKey } from "@kurz/contracts";
import { SecretReveal } from "./SecretReveal.tsx";

/** The one time a full API key is on screen. */
export function KeyReveal({ apiKey, intro }: { apiKey: CreatedApiKey; intro: string }) {
  return (
    <SecretReveal secret={apiKey.key} intro={intro} copyLabel="Copy key" testid="full-key">
      Use it as <code>Authorization: Bearer …</code>. Kurz keeps only a hash; if you lose it, create a new
      key.
    </SecretReveal>
  );
}
