// Getting back in, and confirming a new address, from the links Kurz e-mails. Each token rides in the
// page's fragment, which browsers send to no server and in no Referer:
// - /login#forgot: ask for a password reset link;
// - /login#reset=<token>: choose a new password (it signs in, and ends every other session);
// - /login#email=<token>: confirm a new e-mail address.
import { PASSWORD_MIN_LENGTH, V1_ROUTES } from "@kurz/contracts";
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { useLocation } from "wouter-preact";
import { ApiFailure, call, fieldError, messageOf } from "../api/client.ts";
import { setSession } from "../api/session.ts";
import { AuthCard } from "../components/AuthCard.tsx";
import { PasswordMeter } from "../components/PasswordMeter.tsx";
import { useSubmit } from "../components/useSubmit.ts";
import { EmailField } from "./AuthPage.tsx";
import { Failed } from "./common.tsx";
import { useSecondStep } from "./TwoFactorStep.tsx";

/** What the fragment of /login asks for, if anything. */
export function recoveryOf(hash: string): { forgot: true } | { reset: string } | { email: string } | null {
  const params = new URLSearchParams(hash.slice(1));
  const reset = params.get("reset");
  if (reset) return { reset };
  const email = params.get("email");
  if (email) return { email };
  return hash === "#forgot" ? { forgot: true } : null;
}

function explain(err: unknown): string {
  if (!(err instanceof ApiFailure)) return messageOf(err);
  if (err.code === "SERVICE_UNAVAILABLE") return `${err.message}.`;
  if (err.code === "NOT_FOUND") return "This link was used already or has expired. Ask for a new one.";
  if (err.code === "VALIDATION_ERROR") return fieldError(err, "password") ?? err.message;
  return err.message;
}

/** A signed-out page with the way back to sign-in. */
function Card({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <AuthCard title={title}>
      {children}
      <p class="switch">
        <a href="/login">Back to sign-in</a>
      </p>
    </AuthCard>
  );
}

export function ForgotPasswordPage() {
  const [email, setEmail] = useState("");
  const [done, setDone] = useState(false);
  const { busy, error, submit } = useSubmit(async () => {
    await call(V1_ROUTES.requestPasswordReset, { body: { email } });
    setDone(true);
  });
  return (
    <Card title="Reset your password">
      {done ? (
        <p role="status" data-testid="reset-requested">
          If an account has the address {email}, a link to choose a new password is on its way. It works once,
          within the hour.
        </p>
      ) : (
        <form onSubmit={submit} noValidate>
          {error !== null && <Failed error={error} explain={explain} />}
          <EmailField email={email} onEmail={setEmail} error={fieldError(error, "email")} />
          <button type="submit" class="btn primary block" disabled={busy}>
            {busy ? "Please wait…" : "Send the link"}
          </button>
        </form>
      )}
    </Card>
  );
}

export function ResetPasswordPage({ token }: { token: string }) {
  const [, navigate] = useLocation();
  const [password, setPassword] = useState("");
  // The new password is set; someone with a second factor confirms it is them before the session.
  const second = useSecondStep(() => navigate("/login", { replace: true }));
  const { busy, error, submit } = useSubmit(async () => {
    const { data } = await call(V1_ROUTES.resetPassword, { params: { token }, body: { password } });
    if ("two_factor_required" in data) return second.setChallenge(data);
    setSession(data.session);
    navigate("/dashboard", { replace: true });
  });
  if (second.step) return second.step;
  return (
    <Card title="Choose a new password">
      <form onSubmit={submit} noValidate>
        {error !== null && <Failed error={error} explain={explain} />}
        <label for="password">New password</label>
        <input
          id="password"
          type="password"
          autoComplete="new-password"
          required
          minLength={PASSWORD_MIN_LENGTH}
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
          aria-describedby="password-hint"
        />
        <PasswordMeter id="password-hint" password={password} email="" error={undefined} />
        <p class="hint">Setting it signs you out everywhere else.</p>
        <button type="submit" class="btn primary block" disabled={busy}>
          {busy ? "Please wait…" : "Set password and sign in"}
        </button>
      </form>
    </Card>
  );
}

export function ConfirmEmailPage({ token }: { token: string }) {
  const [state, setState] = useState<{ email: string } | { error: unknown } | null>(null);
  useEffect(() => {
    call(V1_ROUTES.confirmEmailChange, { params: { token } })
      .then(({ data }) => setState({ email: data.email }))
      .catch((error: unknown) => setState({ error }));
  }, [token]);
  return (
    <Card title="Confirm your e-mail address">
      {state === null ? (
        <p role="status">Confirming…</p>
      ) : "email" in state ? (
        <p role="status" data-testid="email-confirmed">
          Done: you now sign in as {state.email}.
        </p>
      ) : (
        <Failed error={state.error} explain={explain} />
      )}
    </Card>
  );
}
