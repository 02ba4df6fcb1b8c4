// How strong a new account password is, while it is typed: the server's own rule
// (@kurz/contracts/password-strength), so the meter and the server never disagree. The rule's
// dictionaries are large, so they load in a chunk of their own on the first keystroke, outside the
// initial bundle; until then (or if loading fails) the field shows the length rule, and the server
// still checks on submit.
import { PASSWORD_MIN_LENGTH } from "@kurz/contracts";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";

type Rule = typeof import("@kurz/contracts/password-strength");
let rule: Promise<Rule> | undefined;
const loadRule = () => {
  rule ??= import("@kurz/contracts/password-strength");
  // A failed load (offline for a moment) is tried again on the next keystroke.
  rule.catch(() => {
    rule = undefined;
  });
  return rule;
};

const LABELS = ["Very weak", "Weak", "Fair", "Strong", "Very strong"] as const;

export const PASSWORD_HINT = `At least ${PASSWORD_MIN_LENGTH} characters, and not a common password, a single word, a name or your e-mail address.`;

/**
 * The note under a new-password input: the meter, and one message the input points at
 * (`aria-describedby={id}`) and a screen reader hears as it changes: the strength and, when too weak,
 * why. The server's refusal (`error`) replaces the message until the password changes.
 */
export function PasswordMeter({
  id,
  password,
  email,
  error,
}: {
  id: string;
  password: string;
  email?: string | undefined;
  error?: string | null | undefined;
}) {
  const [loaded, setLoaded] = useState<Rule | null>(null);
  const typed = password !== "";
  useEffect(() => {
    if (loaded || !typed) return;
    let live = true;
    loadRule().then(
      (r) => live && setLoaded(r),
      () => {},
    );
    return () => {
      live = false;
    };
  }, [loaded, typed]);
  const strength = useMemo(
    () => (loaded && typed ? loaded.passwordStrength(password, { email }) : null),
    [loaded, typed, password, email],
  );

  // The refusal was for the password as it was sent; once it is edited, the meter speaks again.
  const refused = useRef<{ error: string; password: string } | null>(null);
  if (error && refused.current?.error !== error) refused.current = { error, password };
  const shownError = error && refused.current?.password === password ? error : null;

  let message: string = PASSWORD_HINT;
  let weak = false;
  if (shownError) {
    message = shownError;
    weak = true;
  } else if (strength) {
    const label = LABELS[strength.score];
    // Too weak, the reason says so ("This password is too weak: …"); the bar shows how weak.
    message = strength.acceptable ? `Strength: ${label}.` : (strength.problem ?? label);
    weak = !strength.acceptable;
  }
  return (
    <div class="password-meter">
      {strength && (
        // The message below says the same in words, for everyone: the bar is for the eye only.
        <meter
          class="meter strength"
          aria-hidden="true"
          // One step more than the score, so that even the weakest shows a red stub, not an empty bar.
          min={0}
          max={5}
          low={2.5}
          high={3.5}
          optimum={5}
          value={strength.score + 1}
          data-testid="password-strength"
        />
      )}
      <p class={weak ? "field-error" : "hint"} id={id} aria-live="polite">
        {message}
      </p>
    </div>
  );
}
