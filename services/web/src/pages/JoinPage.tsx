// Accepting an invitation: /signup#invitation=<token>. The token stays in the fragment, which browsers
// do not send to the server or in a Referer. The password proves who accepts: the account's own when
// the invited address already has one, else the one its new account gets. Accepted, the person is
// signed in and acts in the workspace they joined.
import { PASSWORD_MIN_LENGTH, WORKSPACE_ROUTES } from "@kurz/contracts";
import { useState } from "preact/hooks";
import { useLocation } from "wouter-preact";
import { ApiFailure, call, fieldError, messageOf, setWorkspace } from "../api/client.ts";
import { setSession } from "../api/session.ts";
import { AuthCard } from "../components/AuthCard.tsx";
import { useSubmit } from "../components/useSubmit.ts";
import { Failed } from "./common.tsx";
import { useSecondStep } from "./TwoFactorStep.tsx";

/** The invitation token in the page's fragment, if any. */
export const invitationToken = (): string | null =>
  new URLSearchParams(location.hash.slice(1)).get("invitation");

function explain(err: unknown): string {
  if (!(err instanceof ApiFailure)) return messageOf(err);
  if (err.code === "UNAUTHORIZED")
    return "This is not the password of the account with the invited e-mail address.";
  if (err.code === "VALIDATION_ERROR") return fieldError(err, "password") ?? err.message;
  return err.message;
}

export function JoinPage({ token }: { token: string }) {
  const [, navigate] = useLocation();
  const [password, setPassword] = useState("");
  const second = useSecondStep();
  const { busy, error, submit } = useSubmit(async () => {
    const { data } = await call(WORKSPACE_ROUTES.acceptInvitation, { params: { token }, body: { password } });
    if ("two_factor_required" in data) return second.setChallenge(data);
    setWorkspace(data.session.account_id);
    setSession(data.session);
    navigate("/dashboard", { replace: true });
  });
  if (second.step) return second.step;
  return (
    <AuthCard title="Join a workspace">
      <p class="muted">You were invited to work with others in Kurz.</p>
      <form onSubmit={submit} noValidate>
        {error !== null && <Failed error={error} explain={explain} />}
        <label for="password">Password</label>
        <input
          id="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
          aria-invalid={error instanceof ApiFailure && error.code !== "NOT_FOUND" ? true : undefined}
          aria-describedby="password-hint"
        />
        <p class="hint" id="password-hint">
          Already have a Kurz account with the invited e-mail address? Enter its password. If not, choose a
          password for your new account (at least {PASSWORD_MIN_LENGTH} characters, not easy to guess).
        </p>
        <button type="submit" class="btn primary block" disabled={busy}>
          {busy ? "Please wait…" : "Join workspace"}
        </button>
      </form>
    </AuthCard>
  );
}
