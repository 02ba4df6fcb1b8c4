import type { ComponentChildren } from "preact";
import { CopyButton } from "./CopyButton.tsx";

/** The one time a secret (an API key, a signing secret) is on screen, with a button to copy it. */
export function SecretReveal({
  secret,
  intro,
  copyLabel,
  testid,
  children,
}: {
  secret: string;
  intro: string;
  copyLabel: string;
  testid: string;
  /** The hint below: how to use it and what to do if it is lost. */
  children: ComponentChildren;
}) {
  return (
    <div class="key-reveal">
      <p>{intro}</p>
      <div class="key-box">
        <code data-testid={testid}>{secret}</code>
        <CopyButton text={secret} label={copyLabel} />
      </div>
      <p class="hint">{children}</p>
    </div>
  );
}
