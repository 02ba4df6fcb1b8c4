// Account: e-mail, plan and limits (set by the server's operator), usage, default expiry, whether new
// links forward the visit's query, password and e-mail address changes, and deleting yourself
// (DeleteAccountCard).
import {
  type HealthCheckInterval,
  MAX_DEFAULT_EXPIRY_HOURS,
  PASSWORD_MIN_LENGTH,
  type UpdateAccountBody,
  V1_ROUTES,
} from "@kurz/contracts";
import { useEffect, useState } from "preact/hooks";
import { invalidate, useQuery } from "../api/cache.ts";
import { ApiFailure, call, fieldError, messageOf } from "../api/client.ts";
import { FormField, TextField } from "../components/FormField.tsx";
import { FormStatus } from "../components/FormStatus.tsx";
import { PasswordMeter } from "../components/PasswordMeter.tsx";
import { Failed, fmtDay, Loading, PageHead } from "./common.tsx";
import { DeleteAccountCard } from "./DeleteAccountCard.tsx";
import { SessionsCard } from "./SessionsCard.tsx";

function DefaultExpiry({ hours }: { hours: number | null }) {
  const [value, setValue] = useState(hours === null ? "" : String(hours));
  const [state, setState] = useState<{ ok?: string; error?: string }>({});
  useEffect(() => setValue(hours === null ? "" : String(hours)), [hours]);
  const submit = async (e: Event) => {
    e.preventDefault();
    setState({});
    try {
      await call(V1_ROUTES.updateAccount, {
        body: { default_expiry_hours: value === "" ? null : Number(value) },
      });
      invalidate("account");
      setState({ ok: "Saved." });
    } catch (err) {
      setState({ error: fieldError(err, "default_expiry_hours") ?? messageOf(err) });
    }
  };
  return (
    <form class="form card" onSubmit={submit} noValidate aria-labelledby="expiry-title">
      <h2 class="card-title" id="expiry-title">
        Default expiry
      </h2>
      <div class="field">
        <label for="default-expiry">Hours until new links expire</label>
        <input
          id="default-expiry"
          type="number"
          min={1}
          max={MAX_DEFAULT_EXPIRY_HOURS}
          inputMode="numeric"
          value={value}
          onInput={(e) => setValue(e.currentTarget.value)}
          aria-describedby="default-expiry-hint"
        />
        <p class="hint" id="default-expiry-hint">
          Applied to links created without an expiry. Empty: links do not expire.
        </p>
      </div>
      <FormStatus ok={state.ok} error={state.error} />
      <button type="submit" class="btn primary">
        Save
      </button>
    </form>
  );
}

/**
 * A workspace setting saved as soon as it is chosen (a switch, a select), shown at once and put back
 * when the save fails: the value, whether a save runs, what it said, and the save itself.
 */
function useSavedSetting<T>(initial: T, body: (value: T) => UpdateAccountBody, said: (value: T) => string) {
  const [value, setValue] = useState(initial);
  const [busy, setBusy] = useState(false);
  const [state, setState] = useState<{ ok?: string; error?: string }>({});
  useEffect(() => setValue(initial), [initial]);
  const save = async (next: T) => {
    const before = value;
    setState({});
    setBusy(true);
    setValue(next);
    try {
      await call(V1_ROUTES.updateAccount, { body: body(next) });
      setState({ ok: said(next) });
    } catch (err) {
      setValue(before);
      setState({ error: messageOf(err) });
    }
    setBusy(false);
    invalidate("account");
  };
  return { value, busy, state, save };
}

/** The default of new links' forward_query: saved when switched, as the link page's sharing switch is. */
function ForwardQuery({ on }: { on: boolean }) {
  const { value, busy, state, save } = useSavedSetting(
    on,
    (next) => ({ forward_query: next }),
    (next) => (next ? "New links forward query parameters." : "New links do not forward query parameters."),
  );
  return (
    <section class="form card" aria-labelledby="forward-title">
      <h2 class="card-title" id="forward-title">
        New links
      </h2>
      <label class="switch-row">
        <input
          type="checkbox"
          role="switch"
          disabled={busy}
          aria-checked={value}
          checked={value}
          aria-describedby="forward-hint"
          onChange={(e) => void save(e.currentTarget.checked)}
        />
        Forward query parameters
      </label>
      <p class="hint switch-hint" id="forward-hint">
        A visit to <code>/code?ref=x</code> goes on to the destination with <code>ref=x</code> added. Each
        link can say otherwise under "Smart destinations".
      </p>
      <FormStatus ok={state.ok} error={state.error} />
    </section>
  );
}

const INTERVALS: { value: HealthCheckInterval; label: string }[] = [
  { value: "hourly", label: "Every hour" },
  { value: "daily", label: "Every day" },
  { value: "weekly", label: "Every week" },
  { value: "off", label: "Never" },
];

/** How often the workspace's links' destinations are checked (docs/health.md): saved when chosen. */
function HealthInterval({ interval }: { interval: HealthCheckInterval }) {
  const { value, busy, state, save } = useSavedSetting(
    interval,
    (next) => ({ health_check_interval: next }),
    (next) =>
      next === "off" ? "Destinations are checked only when asked." : "Saved: the next checks follow it.",
  );
  return (
    <section class="form card" aria-labelledby="health-interval-title">
      <h2 class="card-title" id="health-interval-title">
        Link health
      </h2>
      <div class="field">
        <label for="health-interval">Check destinations</label>
        <select
          id="health-interval"
          value={value}
          disabled={busy}
          aria-describedby="health-interval-hint"
          onChange={(e) => void save(e.currentTarget.value as HealthCheckInterval)}
        >
          {INTERVALS.map((i) => (
            <option key={i.value} value={i.value}>
              {i.label}
            </option>
          ))}
        </select>
        <p class="hint" id="health-interval-hint">
          Kurz checks that each active link's destination still answers. A link that fails two checks in a row
          is marked broken and sent to its fallback, if it has one.
        </p>
      </div>
      <FormStatus ok={state.ok} error={state.error} />
    </section>
  );
}

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
      <TextField
        id="current-password"
        label="Current password"
        type="password"
        autoComplete="current-password"
        required
        value={current}
        onValue={setCurrent}
      />
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
      <TextField
        id="email-current-password"
        label="Current password"
        type="password"
        autoComplete="current-password"
        required
        value={current}
        onValue={setCurrent}
      />
      <FormStatus ok={state.ok} error={state.error} />
      <button type="submit" class="btn primary">
        Send confirmation link
      </button>
    </form>
  );
}

export function AccountPage() {
  const account = useQuery("account", () => call(V1_ROUTES.getAccount).then((r) => r.data));
  const a = account.data;
  if (account.error) return <Failed error={account.error} />;
  if (!a) return <Loading what="Loading account" />;
  return (
    <>
      <PageHead title="Account" />
      <section class="card" aria-labelledby="acct-title">
        <h2 class="card-title" id="acct-title">
          Your account
        </h2>
        <dl class="facts">
          <dt>E-mail</dt>
          <dd data-testid="account-email">{a.email}</dd>
          <dt>Member since</dt>
          <dd>{fmtDay(a.created_at)}</dd>
          <dt>Links</dt>
          <dd>
            {a.total_links.toLocaleString()} of {a.link_limit.toLocaleString()}
            <meter
              class="meter"
              aria-label="Link limit used"
              min={0}
              max={a.link_limit}
              value={a.total_links}
            />
          </dd>
          <dt>Clicks in all</dt>
          <dd>{a.total_clicks.toLocaleString()}</dd>
          {a.status !== undefined && (
            <>
              <dt>Plan</dt>
              <dd data-testid="account-plan">{a.status}</dd>
            </>
          )}
          {a.rate_limit_per_minute !== undefined && a.rate_limit_per_hour !== undefined && (
            <>
              <dt>API requests per key</dt>
              <dd data-testid="account-rate-limit">
                {a.rate_limit_per_minute.toLocaleString()} a minute, {a.rate_limit_per_hour.toLocaleString()}{" "}
                an hour
              </dd>
            </>
          )}
        </dl>
        <p class="hint" id="limits-hint">
          The plan, the link limit and the request limits are set by the operator of this server: ask them to
          raise a limit.
        </p>
      </section>
      <div class="grid-2">
        <DefaultExpiry hours={a.default_expiry_hours} />
        <ForwardQuery on={a.forward_query ?? true} />
        <HealthInterval interval={a.health_check_interval ?? "daily"} />
        <ChangePassword email={a.email} />
        <ChangeEmail />
      </div>
      <SessionsCard />
      <DeleteAccountCard />
    </>
  );
}
