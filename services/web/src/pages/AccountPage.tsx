// Account: the signed-in person's own settings, whichever workspace is chosen: their e-mail address,
// password and e-mail changes, their sessions, and deleting themselves (DeleteAccountCard). The
// workspace's own settings are on the Workspace page (WorkspacePage.tsx).
import { PASSWORD_MIN_LENGTH, V1_ROUTES } from "@kurz/contracts";
import { useState } from "preact/hooks";
import { Link } from "wouter-preact";
import { invalidate } from "../api/cache.ts";
import { ApiFailure, call, fieldError, messageOf } from "../api/client.ts";
import { useSession } from "../api/session.ts";
import { CurrentPasswordField, FormField, TextField } from "../components/FormField.tsx";
import { FormStatus } from "../components/FormStatus.tsx";
import { PasswordMeter } from "../components/PasswordMeter.tsx";
import { Loading, PageHead } from "./common.tsx";
import { DeleteAccountCard } from "./DeleteAccountCard.tsx";
import { SessionsCard } from "./SessionsCard.tsx";

function ChangePassword({ email }: { email: string }) {
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [revokeKeys, setRevokeKeys] = useState(false);
  const [state, setState] = useState<{ ok?: string; error?: string }>({});
  const submit = async (e: Event) => {
    e.preventDefault();
    setState({});
    try {
      const { data } = await call(V1_ROUTES.changePassword, {
        body: { current_password: current, new_password: next, revoke_keys: revokeKeys },
      });
      setCurrent("");
      setNext("");
      setRevokeKeys(false);
      if (data.revoked_keys > 0) invalidate("usage");
      setState({
        ok: `Password changed. Your other sessions were signed out${
          revokeKeys
            ? ` and ${data.revoked_keys} API ${data.revoked_keys === 1 ? "key" : "keys"} revoked`
            : ""
        }.`,
      });
    } catch (err) {
      setState({
        error:
          err instanceof ApiFailure && err.code === "FORBIDDEN"
            ? "The current password is wrong."
            : (fieldError(err, "new_password") ?? messageOf(err)),
      });
    }
  };
  return (
    <form class="form card" onSubmit={submit} noValidate aria-labelledby="password-title">
      <h2 class="card-title" id="password-title">
        Change password
      </h2>
      <CurrentPasswordField id="current-password" value={current} onValue={setCurrent} />
      <FormField id="new-password" label="New password">
        <input
          id="new-password"
          type="password"
          autoComplete="new-password"
          required
          minLength={PASSWORD_MIN_LENGTH}
          value={next}
          onInput={(e) => setNext(e.currentTarget.value)}
          aria-describedby="new-password-hint"
        />
        <PasswordMeter id="new-password-hint" password={next} email={email} />
      </FormField>
      <label class="check">
        <input
          type="checkbox"
          checked={revokeKeys}
          onChange={(e) => setRevokeKeys(e.currentTarget.checked)}
        />
        Also revoke every API key (they keep working otherwise)
      </label>
      <FormStatus ok={state.ok} error={state.error} />
      <button type="submit" class="btn primary">
        Change password
      </button>
    </form>
  );
}

/** A new sign-in address: it takes effect when the link mailed to it is followed. */
function ChangeEmail() {
  const [email, setEmail] = useState("");
  const [current, setCurrent] = useState("");
  const [state, setState] = useState<{ ok?: string; error?: string }>({});
  const submit = async (e: Event) => {
    e.preventDefault();
    setState({});
    try {
      const { data } = await call(V1_ROUTES.changeEmail, { body: { email, current_password: current } });
      setCurrent("");
      setState({
        ok: `A confirmation link went to ${data.email}. Your address changes once it is followed.`,
      });
    } catch (err) {
      setState({
        error:
          err instanceof ApiFailure && err.code === "FORBIDDEN"
            ? "The current password is wrong."
            : err instanceof ApiFailure && err.code === "CONFLICT"
              ? "Another account has this address."
              : (fieldError(err, "email") ?? messageOf(err)),
      });
    }
  };
  return (
    <form class="form card" onSubmit={submit} noValidate aria-labelledby="email-title">
      <h2 class="card-title" id="email-title">
        Change e-mail address
      </h2>
      <TextField
        id="new-email"
        label="New e-mail address"
        type="email"
        autoComplete="email"
        required
        value={email}
        onValue={setEmail}
      />
      <CurrentPasswordField id="email-current-password" value={current} onValue={setCurrent} />
      <FormStatus ok={state.ok} error={state.error} />
      <button type="submit" class="btn primary">
        Send confirmation link
      </button>
    </form>
  );
}

export function AccountPage() {
  const session = useSession();
  if (!session) return <Loading what="Loading account" />;
  return (
    <>
      <PageHead title="Account" />
      <section class="card" aria-labelledby="acct-title">
        <h2 class="card-title" id="acct-title">
          Your account
        </h2>
        <dl class="facts">
          <dt>E-mail</dt>
          <dd data-testid="account-email">{session.email}</dd>
          <dt>Workspaces</dt>
          <dd>{session.workspaces.map((w) => w.name).join(", ")}</dd>
        </dl>
        <p class="hint">
          The workspace's plan, limits and the defaults of its links are under{" "}
          <Link href="/dashboard/workspace">Workspace → General</Link>.
        </p>
      </section>
      <div class="grid-2">
        <ChangePassword email={session.email} />
        <ChangeEmail />
      </div>
      <SessionsCard />
      <DeleteAccountCard />
    </>
  );
}
