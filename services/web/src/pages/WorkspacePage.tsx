// Workspace settings: the workspace's name, its plan, limits and usage (set by the server's operator),
// and the defaults its links follow: expiry, whether new links forward the visit's query, and how
// often destinations are checked. Everyone in the workspace reads them; admins and owners change them
// (workspace:admin), and the page says so to the others rather than offering controls that would fail.
import {
  type HealthCheckInterval,
  MAX_DEFAULT_EXPIRY_HOURS,
  type Session,
  type UpdateAccountBody,
  V1_ROUTES,
  WORKSPACE_NAME_MAX_LENGTH,
  WORKSPACE_ROUTES,
} from "@kurz/contracts";
import { useEffect, useState } from "preact/hooks";
import { invalidate, useQuery } from "../api/cache.ts";
import { call, fieldError, messageOf } from "../api/client.ts";
import { checkSession, useCan, useSession } from "../api/session.ts";
import { TextField } from "../components/FormField.tsx";
import { FormStatus } from "../components/FormStatus.tsx";
import { useSubmit } from "../components/useSubmit.ts";
import { Failed, fmtDay, Loading, PageHead } from "./common.tsx";

/** A refused save's message: the named field's, else the answer's. */
const failure = (err: unknown, field: string) =>
  err ? (fieldError(err, field) ?? messageOf(err)) : undefined;

function WorkspaceName({ session, canEdit }: { session: Session; canEdit: boolean }) {
  const current = session.workspaces.find((w) => w.id === session.account_id)?.name ?? "";
  const [name, setName] = useState(current);
  const [saved, setSaved] = useState(false);
  useEffect(() => setName(current), [current]);
  const { busy, error, submit } = useSubmit(async () => {
    setSaved(false);
    await call(WORKSPACE_ROUTES.updateWorkspace, {
      params: { id: session.account_id },
      body: { name: name.trim() },
    });
    // The switcher and every page's title read the name from the session.
    await checkSession();
    setSaved(true);
  });
  return (
    <form class="form card" onSubmit={submit} noValidate aria-labelledby="ws-name-title">
      <h2 class="card-title" id="ws-name-title">
        Name
      </h2>
      <TextField
        id="workspace-name"
        label="Workspace name"
        value={name}
        onValue={setName}
        maxLength={WORKSPACE_NAME_MAX_LENGTH}
        disabled={!canEdit}
        error={failure(error, "name")}
      />
      <FormStatus ok={saved ? "Saved." : undefined} />
      {canEdit && (
        <button type="submit" class="btn primary" disabled={busy}>
          Save
        </button>
      )}
    </form>
  );
}

function DefaultExpiry({ hours, canEdit }: { hours: number | null; canEdit: boolean }) {
  const [value, setValue] = useState(hours === null ? "" : String(hours));
  const [saved, setSaved] = useState(false);
  useEffect(() => setValue(hours === null ? "" : String(hours)), [hours]);
  const { busy, error, submit } = useSubmit(async () => {
    setSaved(false);
    await call(V1_ROUTES.updateAccount, {
      body: { default_expiry_hours: value === "" ? null : Number(value) },
    });
    invalidate("account");
    setSaved(true);
  });
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
          disabled={!canEdit}
          value={value}
          onInput={(e) => setValue(e.currentTarget.value)}
          aria-describedby="default-expiry-hint"
        />
        <p class="hint" id="default-expiry-hint">
          Applied to links created without an expiry. Empty: links do not expire.
        </p>
      </div>
      <FormStatus ok={saved ? "Saved." : undefined} error={failure(error, "default_expiry_hours")} />
      {canEdit && (
        <button type="submit" class="btn primary" disabled={busy}>
          Save
        </button>
      )}
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
function ForwardQuery({ on, canEdit }: { on: boolean; canEdit: boolean }) {
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
          disabled={busy || !canEdit}
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
function HealthInterval({ interval, canEdit }: { interval: HealthCheckInterval; canEdit: boolean }) {
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
          disabled={busy || !canEdit}
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

export function WorkspacePage() {
  const session = useSession();
  const canEdit = useCan("workspace:admin");
  const account = useQuery("account", () => call(V1_ROUTES.getAccount).then((r) => r.data));
  const a = account.data;
  if (account.error) return <Failed error={account.error} />;
  if (!a || !session) return <Loading what="Loading workspace" />;
  return (
    <>
      <PageHead title="Workspace" />
      {!canEdit && (
        <p class="card" data-testid="workspace-read-only">
          You can read these settings; admins and owners of this workspace change them.
        </p>
      )}
      <section class="card" aria-labelledby="usage-title">
        <h2 class="card-title" id="usage-title">
          Plan and usage
        </h2>
        <dl class="facts">
          <dt>Created</dt>
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
        <WorkspaceName session={session} canEdit={canEdit} />
        <DefaultExpiry hours={a.default_expiry_hours} canEdit={canEdit} />
        <ForwardQuery on={a.forward_query ?? true} canEdit={canEdit} />
        <HealthInterval interval={a.health_check_interval ?? "daily"} canEdit={canEdit} />
      </div>
    </>
  );
}
