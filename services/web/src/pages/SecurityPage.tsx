// Settings → Security: the signed-in person's second factors (an authenticator app with its recovery
// codes, and passkeys) and, for owners, whether the workspace requires two-factor sign-in. Adding or
// removing a factor needs the password confirmed first (for 10 minutes), as the server asks.
import {
  PASSKEY_NAME_MAX_LENGTH,
  type Passkey,
  SUDO_WINDOW_MINUTES,
  type TotpEnrolment,
  TWO_FACTOR_ROUTES,
  V1_ROUTES,
  WORKSPACE_ROUTES,
} from "@kurz/contracts";
import { useState } from "preact/hooks";
import { invalidate, useQuery } from "../api/cache.ts";
import { ApiFailure, call, messageOf } from "../api/client.ts";
import { checkSession, useCan, useSession } from "../api/session.ts";
import { createPasskey, passkeyProblem, passkeysSupported } from "../api/webauthn.ts";
import { CopyButton } from "../components/CopyButton.tsx";
import { CurrentPasswordField, TextField } from "../components/FormField.tsx";
import { FormStatus } from "../components/FormStatus.tsx";
import { Failed, fmtDay, Loading, PageHead } from "./common.tsx";

const problem = (err: unknown) => (err instanceof ApiFailure ? messageOf(err) : passkeyProblem(err));

/** After a factor changed: the status, the passkeys, and the session's "has a second factor". */
const refresh = () => {
  invalidate("two-factor", "passkeys");
  void checkSession();
};

/** The password, confirmed for a while: what adding and removing factors ask first. */
function ConfirmPassword({ until, onConfirmed }: { until: number; onConfirmed: (until: number) => void }) {
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | undefined>();
  if (until > Date.now()) {
    return (
      <p class="hint" role="status">
        Password confirmed: you can change your sign-in methods for {SUDO_WINDOW_MINUTES} minutes.
      </p>
    );
  }
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    try {
      const { data } = await call(V1_ROUTES.confirmPassword, { body: { current_password: password } });
      setPassword("");
      onConfirmed(Date.parse(data.confirmed_until));
    } catch (err) {
      setError(messageOf(err));
    }
  };
  return (
    <form class="form card" onSubmit={submit} noValidate aria-labelledby="sudo-title">
      <h2 class="card-title" id="sudo-title">
        Confirm your password
      </h2>
      <p class="hint">Adding or removing a way to sign in needs your password first.</p>
      <CurrentPasswordField id="sudo-password" value={password} onValue={setPassword} />
      <FormStatus error={error} />
      <button type="submit" class="btn primary">
        Confirm
      </button>
    </form>
  );
}

function RecoveryCodeList({ codes }: { codes: string[] }) {
  return (
    <div data-testid="recovery-codes">
      <p>
        Keep these recovery codes somewhere safe: each signs you in once if you lose your authenticator app.
        They are shown only now.
      </p>
      <ul class="recovery-codes">
        {codes.map((c) => (
          <li key={c}>{c}</li>
        ))}
      </ul>
      <CopyButton text={codes.join("\n")} label="Copy the codes" />
    </div>
  );
}

function AuthenticatorApp({ confirmed, on, left }: { confirmed: boolean; on: boolean; left: number }) {
  const [enrolment, setEnrolment] = useState<TotpEnrolment | null>(null);
  const [code, setCode] = useState("");
  const [codes, setCodes] = useState<string[] | null>(null);
  const [error, setError] = useState<string | undefined>();
  const act = (action: () => Promise<void>) => async (e?: Event) => {
    e?.preventDefault();
    setError(undefined);
    try {
      await action();
    } catch (err) {
      setError(problem(err));
    }
  };
  const start = act(async () => {
    const { data } = await call(TWO_FACTOR_ROUTES.startTotp, { body: {} });
    setEnrolment(data);
    setCodes(null);
  });
  const confirm = act(async () => {
    const { data } = await call(TWO_FACTOR_ROUTES.confirmTotp, { body: { code } });
    setEnrolment(null);
    setCode("");
    setCodes(data.recovery_codes);
    refresh();
  });
  const regenerate = act(async () => {
    const { data } = await call(TWO_FACTOR_ROUTES.regenerateRecoveryCodes, { body: {} });
    setCodes(data.recovery_codes);
    refresh();
  });
  const remove = act(async () => {
    await call(TWO_FACTOR_ROUTES.disableTotp, { body: {} });
    setCodes(null);
    refresh();
  });
  return (
    <section class="card" aria-labelledby="totp-title">
      <h2 class="card-title" id="totp-title">
        Authenticator app
      </h2>
      {codes && <RecoveryCodeList codes={codes} />}
      {on ? (
        <>
          <p data-testid="totp-on">
            On. Signing in with your password asks for a code from your app.{" "}
            <span class="muted">{left} recovery codes left.</span>
          </p>
          <div class="factor-actions">
            <button type="button" class="btn" onClick={() => regenerate()} disabled={!confirmed}>
              New recovery codes
            </button>
            <button type="button" class="btn danger-ghost" onClick={() => remove()} disabled={!confirmed}>
              Remove the app
            </button>
          </div>
        </>
      ) : enrolment ? (
        <form class="form" onSubmit={confirm} noValidate>
          <p>Scan this code with your authenticator app, then enter the six digits it shows.</p>
          <img class="totp-qr" src={enrolment.qr_data_url} alt="QR code for your authenticator app" />
          <p class="hint">
            Or type this key: <code data-testid="totp-secret">{enrolment.secret}</code>
          </p>
          <TextField id="totp-code" label="Code" value={code} onValue={setCode} required />
          <button type="submit" class="btn primary">
            Turn on
          </button>
        </form>
      ) : (
        <>
          <p class="muted">
            Off. Use an app such as 1Password, Google Authenticator or Aegis for a second factor.
          </p>
          <button type="button" class="btn primary" onClick={() => start()} disabled={!confirmed}>
            Set up an authenticator app
          </button>
        </>
      )}
      <FormStatus error={error} />
    </section>
  );
}

function PasskeyRow({ passkey, confirmed }: { passkey: Passkey; confirmed: boolean }) {
  const [name, setName] = useState(passkey.name);
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const rename = async (e: Event) => {
    e.preventDefault();
    try {
      await call(TWO_FACTOR_ROUTES.renamePasskey, { params: { id: passkey.id }, body: { name } });
      setEditing(false);
      invalidate("passkeys");
    } catch (err) {
      setError(problem(err));
    }
  };
  const remove = async () => {
    try {
      await call(TWO_FACTOR_ROUTES.deletePasskey, { params: { id: passkey.id }, body: {} });
      refresh();
    } catch (err) {
      setError(problem(err));
    }
  };
  return (
    <li class="passkey" data-testid="passkey">
      {editing ? (
        <form onSubmit={rename} class="inline-form">
          <label class="sr-only" for={`name-${passkey.id}`}>
            Passkey name
          </label>
          <input
            id={`name-${passkey.id}`}
            value={name}
            maxLength={PASSKEY_NAME_MAX_LENGTH}
            onInput={(e) => setName(e.currentTarget.value)}
          />
          <button type="submit" class="btn small primary">
            Save
          </button>
        </form>
      ) : (
        <span>
          <strong>{passkey.name}</strong>{" "}
          <span class="muted">
            added {fmtDay(passkey.created_at)}
            {passkey.last_used_at ? `, last used ${fmtDay(passkey.last_used_at)}` : ", never used"}
          </span>
        </span>
      )}
      <span class="factor-actions">
        {!editing && (
          <button type="button" class="btn small ghost" onClick={() => setEditing(true)}>
            Rename
          </button>
        )}
        <button type="button" class="btn small danger-ghost" onClick={remove} disabled={!confirmed}>
          Remove
        </button>
      </span>
      <FormStatus error={error} />
    </li>
  );
}

function Passkeys({ confirmed }: { confirmed: boolean }) {
  const list = useQuery("passkeys", async () => (await call(TWO_FACTOR_ROUTES.listPasskeys)).data);
  const [name, setName] = useState("");
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const add = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    setBusy(true);
    try {
      const { data } = await call(TWO_FACTOR_ROUTES.passkeyRegistrationOptions, { body: {} });
      const response = await createPasskey(data.options);
      await call(TWO_FACTOR_ROUTES.registerPasskey, {
        body: { response, ...(name.trim() ? { name: name.trim() } : {}) },
      });
      setName("");
      refresh();
    } catch (err) {
      setError(problem(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="card" aria-labelledby="passkeys-title">
      <h2 class="card-title" id="passkeys-title">
        Passkeys
      </h2>
      <p class="muted">
        A passkey signs you in without a password (your device checks your fingerprint, face or PIN), and
        stands in as the second factor after your password.
      </p>
      {list.error !== undefined && <Failed error={list.error} />}
      {list.loading && <Loading />}
      {list.data && list.data.length > 0 && (
        <ul class="passkeys">
          {list.data.map((p) => (
            <PasskeyRow key={p.id} passkey={p} confirmed={confirmed} />
          ))}
        </ul>
      )}
      {passkeysSupported() ? (
        <form class="form" onSubmit={add} noValidate>
          <TextField
            id="passkey-name"
            label="Name (optional)"
            placeholder="e.g. Work laptop"
            maxLength={PASSKEY_NAME_MAX_LENGTH}
            value={name}
            onValue={setName}
          />
          <button type="submit" class="btn primary" disabled={!confirmed || busy}>
            Add a passkey
          </button>
        </form>
      ) : (
        <p class="hint">This browser cannot create passkeys.</p>
      )}
      <FormStatus error={error} />
    </section>
  );
}

function RequireTwoFactor({ enabled }: { enabled: boolean }) {
  const session = useSession();
  const workspace = session?.workspaces.find((w) => w.id === session.account_id);
  const [error, setError] = useState<string | undefined>();
  if (!session || !workspace) return null;
  const toggle = async (on: boolean) => {
    setError(undefined);
    try {
      await call(WORKSPACE_ROUTES.updateWorkspace, {
        params: { id: session.account_id },
        body: { require_two_factor: on },
      });
      invalidate("workspace");
      await checkSession();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  return (
    <section class="card" aria-labelledby="require-title">
      <h2 class="card-title" id="require-title">
        Require two-factor sign-in in {workspace.name}
      </h2>
      <label class="switch-row">
        <input
          type="checkbox"
          role="switch"
          aria-checked={workspace.require_two_factor}
          checked={workspace.require_two_factor}
          disabled={!enabled && !workspace.require_two_factor}
          onChange={(e) => toggle(e.currentTarget.checked)}
        />
        Members must have an authenticator app or a passkey
      </label>
      <p class="hint">
        Members without one, and the API keys they made, can use nothing in this workspace until they add one.
        {!enabled && " Add a second factor to your own account first."}
      </p>
      <FormStatus error={error} />
    </section>
  );
}

export function SecurityPage() {
  const status = useQuery("two-factor", async () => (await call(TWO_FACTOR_ROUTES.getTwoFactor)).data);
  const [confirmedUntil, setConfirmedUntil] = useState(0);
  const owner = useCan("workspace:owner");
  const confirmed = confirmedUntil > Date.now();
  return (
    <>
      <PageHead title="Security" />
      {status.error !== undefined && <Failed error={status.error} />}
      {status.loading && <Loading />}
      {status.data && (
        <>
          <ConfirmPassword until={confirmedUntil} onConfirmed={setConfirmedUntil} />
          <AuthenticatorApp
            confirmed={confirmed}
            on={status.data.totp}
            left={status.data.recovery_codes_left}
          />
          <Passkeys confirmed={confirmed} />
          {owner && <RequireTwoFactor enabled={status.data.enabled} />}
        </>
      )}
    </>
  );
}
