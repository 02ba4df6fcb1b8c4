// Sign-in and sign-up. Sign-up answers with the account's first API key, which is shown once here
// (the only time it is ever shown) before the dashboard opens.
import {
  type CreatedApiKey,
  PASSWORD_MIN_LENGTH,
  TWO_FACTOR_ROUTES,
  type TwoFactorChallenge,
  V1_ROUTES,
} from "@kurz/contracts";
import { useState } from "preact/hooks";
import { Link, Redirect, useLocation, useSearch } from "wouter-preact";
import { ApiFailure, call, fieldError, messageOf } from "../api/client.ts";
import { setSession, useSession } from "../api/session.ts";
import { passkeyProblem, passkeysSupported, usePasskey } from "../api/webauthn.ts";
import { AuthCard } from "../components/AuthCard.tsx";
import { KeyReveal } from "../components/KeyReveal.tsx";
import { PasswordMeter } from "../components/PasswordMeter.tsx";
import { Failed } from "./common.tsx";
import { SsoButtons } from "./SsoButtons.tsx";
import { TwoFactorStep } from "./TwoFactorStep.tsx";

function safeNext(search: string): string {
  const next = new URLSearchParams(search).get("next") ?? "";
  // Only a path of this site: "//host" or "/\host" would leave it.
  return /^\/dashboard(?:[/?]|$)/.test(next) ? next : "/dashboard";
}

function explain(err: unknown, mode: "login" | "signup"): string {
  if (!(err instanceof ApiFailure)) return messageOf(err);
  if (err.code === "CONFLICT") return "An account with this e-mail already exists. Sign in instead.";
  if (err.code === "RATE_LIMIT_EXCEEDED")
    return `${err.message} Too many attempts; wait a moment and try again.`;
  if (err.code === "FORBIDDEN" && mode === "signup")
    return "Sign-up is closed on this server. Ask its operator for an account.";
  if (err.code === "UNAUTHORIZED" && err.message.includes("passkey")) return err.message;
  if (err.code === "UNAUTHORIZED") return "Invalid e-mail or password.";
  if (err.code === "VALIDATION_ERROR") return "Check the highlighted fields.";
  return err.message;
}

export function AuthPage({ mode }: { mode: "login" | "signup" }) {
  const session = useSession();
  const [, navigate] = useLocation();
  const search = useSearch();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  // The password as last sent: the server's refusal is about that one, not what is typed since.
  const [sent, setSent] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [firstKey, setFirstKey] = useState<CreatedApiKey | null>(null);
  const [challenge, setChallenge] = useState<TwoFactorChallenge | null>(null);
  const signup = mode === "signup";

  if (session && !firstKey) {
    return <Redirect to={safeNext(search)} replace />;
  }

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setSent(password);
    try {
      if (signup) {
        const { data } = await call(V1_ROUTES.register, { body: { email, password } });
        setFirstKey(data.api_key);
        setSession(data.session);
      } else {
        const { data } = await call(V1_ROUTES.login, { body: { email, password } });
        if ("two_factor_required" in data) setChallenge(data);
        else setSession(data.session);
      }
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  if (firstKey) {
    return <FirstKeyReady apiKey={firstKey} onOpen={() => navigate("/dashboard", { replace: true })} />;
  }
  if (challenge) {
    return (
      <TwoFactorStep
        challenge={challenge}
        onSignedIn={setSession}
        onBack={() => {
          setChallenge(null);
          setPassword("");
        }}
      />
    );
  }

  // A passkey alone signs in: the browser offers the passkeys it holds for this site.
  const signInWithPasskey = async () => {
    setBusy(true);
    setError(null);
    try {
      setSession(await passkeySession());
    } catch (err) {
      setError(err instanceof ApiFailure ? err : new Error(passkeyProblem(err)));
    } finally {
      setBusy(false);
    }
  };

  const emailError = fieldError(error, "email");
  const passwordError = fieldError(error, "password");
  return (
    <AuthCard
      title={signup ? "Create your account" : "Sign in"}
      heading={signup ? "Create your account" : "Sign in to Kurz"}
    >
      <form onSubmit={submit} noValidate>
        {!signup && new URLSearchParams(search).get("deleted") === "1" && error === null && (
          <p class="notice" role="status" data-testid="account-deleted">
            Your account was deleted. Thank you for using Kurz.
          </p>
        )}
        {error !== null && <Failed error={error} explain={(err) => explain(err, mode)} />}
        <EmailField email={email} onEmail={setEmail} error={emailError} />
        <PasswordField
          signup={signup}
          password={password}
          onPassword={setPassword}
          email={email}
          error={passwordError}
          sentLength={sent.length}
        />
        <button type="submit" class="btn primary block" disabled={busy}>
          {busy ? "Please wait…" : signup ? "Create account" : "Sign in"}
        </button>
      </form>
      {!signup && passkeysSupported() && (
        <>
          <p class="or">or</p>
          <button type="button" class="btn block" disabled={busy} onClick={signInWithPasskey}>
            Sign in with a passkey
          </button>
        </>
      )}
      {!signup && (
        <p class="switch">
          <a href="/login#forgot">Forgot your password?</a>
        </p>
      )}
      {!signup && <SsoButtons />}
      <AuthSwitch signup={signup} />
    </AuthCard>
  );
}

/** Signs in with a passkey the browser holds for this site: the new session. */
async function passkeySession() {
  const { data: started } = await call(TWO_FACTOR_ROUTES.passkeySignInOptions);
  const response = await usePasskey(started.options);
  const { data } = await call(TWO_FACTOR_ROUTES.passkeySignIn, {
    body: { challenge: started.challenge, response },
  });
  return data.session;
}

/** The password, with its strength and the server's refusal on sign-up (`sentLength`: the refused one's). */
function PasswordField({
  signup,
  password,
  onPassword,
  email,
  error,
  sentLength,
}: {
  signup: boolean;
  password: string;
  onPassword: (password: string) => void;
  email: string;
  error: string | undefined;
  sentLength: number;
}) {
  return (
    <>
      <label for="password">Password</label>
      <input
        id="password"
        type="password"
        autoComplete={signup ? "new-password" : "current-password"}
        required
        minLength={signup ? PASSWORD_MIN_LENGTH : undefined}
        value={password}
        onInput={(e) => onPassword(e.currentTarget.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={signup ? "password-hint" : undefined}
      />
      {signup && (
        <PasswordMeter
          id="password-hint"
          password={password}
          email={email}
          error={
            error && sentLength < PASSWORD_MIN_LENGTH
              ? `Too short: use at least ${PASSWORD_MIN_LENGTH} characters.`
              : error
          }
        />
      )}
    </>
  );
}

/** After sign-up: the account's first API key, shown this once, before the dashboard opens. */
function FirstKeyReady({ apiKey, onOpen }: { apiKey: CreatedApiKey; onOpen: () => void }) {
  return (
    <div class="auth">
      <div class="auth-card wide">
        <h1>Your account is ready</h1>
        <KeyReveal apiKey={apiKey} intro="This is your first API key. Copy it now: it is shown only once." />
        <button type="button" class="btn primary block" onClick={onOpen}>
          I saved it, open the dashboard
        </button>
      </div>
    </div>
  );
}

export function EmailField({
  email,
  onEmail,
  error,
}: {
  email: string;
  onEmail: (email: string) => void;
  error: string | undefined;
}) {
  return (
    <>
      <label for="email">E-mail</label>
      <input
        id="email"
        type="email"
        autoComplete="email"
        required
        value={email}
        onInput={(e) => onEmail(e.currentTarget.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? "email-error" : undefined}
      />
      {error && (
        <p class="field-error" id="email-error">
          {error}
        </p>
      )}
    </>
  );
}

/** The link to the other of sign-in and sign-up. */
function AuthSwitch({ signup }: { signup: boolean }) {
  return (
    <p class="switch">
      {signup ? (
        <>
          Already have an account? <Link href="/login">Sign in</Link>
        </>
      ) : (
        <>
          New to Kurz? <Link href="/signup">Create an account</Link>
        </>
      )}
    </p>
  );
}
