// The audit log (docs/workspaces.md, "Audit log"): who changed what in the workspace, and who signed
// in, newest first. Filters by person, kind of resource and days; "Load more" follows the cursor;
// "Download CSV" fetches every match. Admins and owners only (workspace:admin): the others do not
// see it listed, and the page says so if they open it anyway.
import {
  AUDIT_ROUTES,
  type AuditEvent,
  type Member,
  ROUTES,
  type Session,
  WORKSPACE_ROUTES,
} from "@kurz/contracts";
import { useEffect, useState } from "preact/hooks";
import { useQuery } from "../../api/cache.ts";
import { call, urlOf } from "../../api/client.ts";
import { useCan, useSession } from "../../api/session.ts";
import { FormField, SelectField } from "../../components/FormField.tsx";
import { Table } from "../../components/TableCard.tsx";
import { DownloadLink } from "../../components/WorkspaceFiles.tsx";
import { Failed, fmtDate, Loading, Notice, PageHead } from "../common.tsx";
import "../data/data.css";
import "./audit-log.css";

const PAGE = 50;

/** The kinds of resource the log names, as the filter offers them. */
const RESOURCES: { value: string; label: string }[] = [
  { value: "", label: "Everything" },
  { value: "link", label: "Links" },
  { value: "session", label: "Sign-ins" },
  { value: "user", label: "People's accounts" },
  { value: "member", label: "Members" },
  { value: "invitation", label: "Invitations" },
  { value: "api_key", label: "API keys" },
  { value: "workspace", label: "Workspace settings" },
  { value: "domain", label: "Domains" },
  { value: "campaign", label: "Campaigns" },
  { value: "channel", label: "Channels" },
  { value: "overlay", label: "Overlays" },
  { value: "webhook", label: "Webhooks" },
  { value: "import", label: "Imports" },
  { value: "export", label: "Exports" },
];

interface Filters {
  actor: string;
  resource: string;
  /** Days, YYYY-MM-DD, in the browser's time zone; "" for no bound. */
  from: string;
  to: string;
}

const NONE: Filters = { actor: "", resource: "", from: "", to: "" };

/** The query the filters make (a day's bounds as instants: `to` takes the whole day). */
function queryOf(f: Filters, cursor?: string) {
  const q: { actor?: string; resource_type?: string; from?: string; to?: string; cursor?: string } = {};
  if (f.actor) q.actor = f.actor;
  if (f.resource) q.resource_type = f.resource;
  if (f.from) q.from = new Date(`${f.from}T00:00:00`).toISOString();
  if (f.to) q.to = new Date(new Date(`${f.to}T00:00:00`).getTime() + 86_400_000).toISOString();
  if (cursor) q.cursor = cursor;
  return q;
}

export function AuditLogPage() {
  const session = useSession();
  const allowed = useCan("workspace:admin");
  if (!session) return null;
  if (!allowed) {
    return (
      <>
        <PageHead title="Audit log" />
        <Notice text="Only the workspace's admins and owners can read its audit log." />
      </>
    );
  }
  return <AuditLog session={session} />;
}

function AuditLog({ session }: { session: Session }) {
  const [filters, setFilters] = useState<Filters>(NONE);
  const [events, setEvents] = useState<AuditEvent[] | undefined>(undefined);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const [loadingMore, setLoadingMore] = useState(false);
  const members = useQuery("members", () =>
    call(WORKSPACE_ROUTES.listMembers, { params: { id: session.account_id } }).then((r) => r.data),
  );
  const workspace = useQuery("workspace", () =>
    call(WORKSPACE_ROUTES.getWorkspace, { params: { id: session.account_id } }).then((r) => r.data),
  );

  const badRange = filters.from !== "" && filters.to !== "" && filters.from > filters.to;
  const fetchPage = (cursor?: string) =>
    call(AUDIT_ROUTES.listAuditLog, {
      query: { ...queryOf(filters, cursor), limit: String(PAGE) },
    }).then((r) => r.data);

  // A change of filters starts the list again from the newest event.
  useEffect(() => {
    if (badRange) return;
    let current = true;
    setEvents(undefined);
    setError(undefined);
    fetchPage().then(
      (page) => {
        if (!current) return;
        setEvents(page.events);
        setNext(page.next_cursor);
      },
      (err: unknown) => current && setError(err),
    );
    return () => {
      current = false;
    };
  }, [filters.actor, filters.resource, filters.from, filters.to]);

  const loadMore = async () => {
    if (next === null) return;
    setLoadingMore(true);
    try {
      const page = await fetchPage(next);
      setEvents((shown) => [...(shown ?? []), ...page.events]);
      setNext(page.next_cursor);
    } catch (err) {
      setError(err);
    } finally {
      setLoadingMore(false);
    }
  };

  const set = (patch: Partial<Filters>) => setFilters((f) => ({ ...f, ...patch }));
  const csvUrl = urlOf(ROUTES.listAuditLog, {
    query: { ...queryOf(filters), format: "csv" },
  });

  return (
    <>
      <PageHead title="Audit log">
        {badRange ? (
          <button type="button" class="btn" disabled>
            Download CSV
          </button>
        ) : (
          <DownloadLink class="btn" href={csvUrl}>
            Download CSV
          </DownloadLink>
        )}
      </PageHead>
      <p class="muted">
        Every change in this workspace and every sign-in to it, with who made it, from which network and
        browser.
        {workspace.data && ` Each event is kept ${workspace.data.audit_retention_days} days.`}
      </p>
      <AuditFilters filters={filters} set={set} badRange={badRange} members={members.data ?? []} />
      {badRange && (
        <p id="audit-range-error" class="field-error" role="alert">
          The first day is after the last.
        </p>
      )}
      {error !== undefined && <Failed error={error} />}
      <div class="card table-card">
        {events === undefined ? (
          error === undefined && !badRange && <Loading what="Loading the audit log" />
        ) : events.length === 0 ? (
          <p class="empty">Nothing recorded matches.</p>
        ) : (
          <Table
            caption="The workspace's audit log, newest first"
            columns={["When", "Who", "What", ["Resource", "col-hide"], ["From", "col-hide"]]}
          >
            <tbody>
              {events.map((e) => (
                <AuditRow key={e.id} e={e} />
              ))}
            </tbody>
          </Table>
        )}
      </div>
      {next !== null && events !== undefined && (
        <div class="toolbar load-more">
          <button type="button" class="btn" onClick={loadMore} disabled={loadingMore}>
            {loadingMore ? "Loading…" : "Load more"}
          </button>
        </div>
      )}
    </>
  );
}

/** Who, what and which days: the list's filters (a first day after the last is marked on both). */
function AuditFilters({
  filters,
  set,
  badRange,
  members,
}: {
  filters: Filters;
  set: (patch: Partial<Filters>) => void;
  badRange: boolean;
  members: Member[];
}) {
  return (
    <div class="card audit-filters">
      <SelectField
        id="audit-actor"
        label="Who"
        value={filters.actor}
        options={[
          { value: "", label: "Anyone" },
          ...members.map((m) => ({ value: m.user_id, label: m.email })),
        ]}
        onValue={(actor) => set({ actor })}
      />
      <SelectField
        id="audit-resource"
        label="What"
        value={filters.resource}
        options={RESOURCES}
        onValue={(resource) => set({ resource })}
      />
      {(["from", "to"] as const).map((end) => (
        <DayField
          key={end}
          id={`audit-${end}`}
          label={end === "from" ? "From" : "To"}
          value={filters[end]}
          invalid={badRange}
          onChange={(day) => set({ [end]: day })}
        />
      ))}
    </div>
  );
}

/** A day of the range; both are marked while the first is after the last (audit-range-error says so). */
function DayField(props: {
  id: string;
  label: string;
  value: string;
  invalid: boolean;
  onChange: (day: string) => void;
}) {
  return (
    <FormField id={props.id} label={props.label}>
      <input
        id={props.id}
        type="date"
        value={props.value}
        onInput={(e) => props.onChange(e.currentTarget.value)}
        aria-invalid={props.invalid ? true : undefined}
        aria-describedby={props.invalid ? "audit-range-error" : undefined}
      />
    </FormField>
  );
}

const ACTOR_KIND = { user: "", key: "API key", system: "Kurz" } as const;

function AuditRow({ e }: { e: AuditEvent }) {
  const who = e.actor.type === "system" ? "Kurz" : e.actor.label || e.actor.id || "—";
  const from = [e.ip_prefix, e.user_agent_family].filter(Boolean).join(" · ");
  return (
    <tr data-testid="audit-row">
      <td>{fmtDate(e.occurred_at)}</td>
      <td>
        {who}
        {ACTOR_KIND[e.actor.type] && e.actor.type !== "system" && (
          <div class="muted small">{ACTOR_KIND[e.actor.type]}</div>
        )}
      </td>
      <td>
        <code class="event-code">{e.action}</code>
        <div class="muted small phone-only">{from}</div>
      </td>
      <td class="col-hide">
        {e.resource_type}
        {e.resource_id && <div class="muted small audit-id">{e.resource_id}</div>}
      </td>
      <td class="col-hide">{from || "—"}</td>
    </tr>
  );
}

export default AuditLogPage;
