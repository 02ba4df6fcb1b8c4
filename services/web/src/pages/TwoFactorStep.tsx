// The sign-in's second step, after a correct password for someone with a second factor: a code from
// their authenticator app, one of their recovery codes, or a passkey. The challenge the password step
// answered is sent with it; it works for a few minutes, once.
import { type Session, TWO_FACTOR_ROUTES, type TwoFactorChallenge } from "@kurz/contracts";
import { useState } from "preact/hooks";
import { useLocation } from "wouter-preact";
import { ApiFailure, call, messageOf } from "../api/client.ts";
import { setSession } from "../api/session.ts";
import { passkeyProblem, passkeysSupported, usePasskey } from "../api/webauthn.ts";
import { AuthCard } from "../components/AuthCard.tsx";
import { Failed } from "./common.tsx";

function explain(err: unknown): string {
  if (!(err instanceof ApiFailure)) return passkeyProblem(err);
  if (err.code === "RATE_LIMIT_EXCEEDED") return `${err.message} Too many attempts; wait and try again.`;
  if (err.code === "VALIDATION_ERROR") return "Enter the six digits your app shows, or a recovery code.";
  return messageOf(err);
}

/**
 * For a page whose password step may answer a second-factor challenge: `setChallenge` shows the step
 * that completes it (`step`, null until then), which signs in and opens the dashboard; its Back button
 * calls `onBack`, by default returning to the password step.
 */
export function useSecondStep(onBack?: () => void) {
  const [, navigate] = useLocation();
  const [challenge, setChallenge] = useState<TwoFactorChallenge | null>(null);
  const step = challenge && (
    <TwoFactorStep
      challenge={challenge}
      onSignedIn={(session) => {
        setSession(session);
        navigate("/dashboard", { replace: true });
      }}
      onBack={onBack ?? (() => setChallenge(null))}
    />
  );
  return { step, setChallenge };
}

export function TwoFactorStep({
  challenge,
  onSignedIn,
  onBack,
}: {
  challenge: TwoFactorChallenge;
  onSignedIn: (session: Session) => void;
  onBack: () => void;
}) {
  const hasTotp = challenge.methods.includes("totp");
  const [recovery, setRecovery] = useState(!hasTotp && challenge.methods.includes("recovery_code"));
  const [code, setCode] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const finish = async (
    second: { code: string } | { recovery_code: string } | { passkey: Record<string, unknown> },
  ) => {
    setBusy(true);
    setError(null);
    try {
      const { data } = await call(TWO_FACTOR_ROUTES.completeTwoFactor, {
        body: { challenge: challenge.challenge, ...second },
      });
      onSignedIn(data.session);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  const submit = (e: Event) => {
    e.preventDefault();
    void finish(recovery ? { recovery_code: code } : { code });
  };
  const withPasskey = async () => {
    if (!challenge.passkey_options) return;
    setError(null);
    try {
      const passkey = await usePasskey(challenge.passkey_options);
      await finish({ passkey });
    } catch (err) {
      setError(err);
    }
  };
  const typed = hasTotp || challenge.methods.includes("recovery_code");
  return (
    <AuthCard title="Two-factor sign-in" heading="Confirm it is you">
      {error !== null && <Failed error={error} explain={explain} />}
      {typed && (
        <form onSubmit={submit} noValidate>
          <label for="second-factor">{recovery ? "Recovery code" : "Code from your authenticator app"}</label>
          <input
            id="second-factor"
            autoComplete="one-time-code"
            inputMode={recovery ? "text" : "numeric"}
            placeholder={recovery ? "abcde-12345" : "123456"}
            required
            value={code}
            onInput={(e) => setCode(e.currentTarget.value)}
          />
          <button type="submit" class="btn primary block" disabled={busy}>
            {busy ? "Please wait…" : "Sign in"}
          </button>
        </form>
      )}
      {challenge.passkey_options && passkeysSupported() && (
        <button type="button" class="btn block" disabled={busy} onClick={withPasskey}>
          Use a passkey
        </button>
      )}
      <p class="switch">
        {hasTotp && challenge.methods.includes("recovery_code") && (
          <>
            <button
              type="button"
              class="link-button"
              onClick={() => {
                setRecovery(!recovery);
                setCode("");
              }}
            >
              {recovery ? "Use your authenticator app" : "Use a recovery code"}
            </button>
            {" · "}
          </>
        )}
        <button type="button" class="link-button" onClick={onBack}>
          Start over
        </button>
      </p>
    </AuthCard>
  );
}
