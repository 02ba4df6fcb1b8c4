// One webhook endpoint and its delivery log, newest first: event, status, response code, latency,
// attempts and the next attempt. The log refreshes itself while anything is still pending.
import { WEBHOOK_ROUTES, type WebhookDelivery, type WebhookDeliveryStatus } from "@kurz/contracts";
import { useEffect, useState } from "preact/hooks";
import { Link } from "wouter-preact";
import { invalidate, useQuery } from "../api/cache.ts";
import { call } from "../api/client.ts";
import { Failed, fmtDate, PageHead } from "./common.tsx";
import { WebhookState } from "./WebhooksPage.tsx";
import "./data/data.css";
import { TableCard } from "../components/TableCard.tsx";

const PER_PAGE = 25;
const REFRESH_MS = 3000;
const STATUS_LABEL: Record<WebhookDeliveryStatus, string> = {
  pending: "Pending",
  delivered: "Delivered",
  failed: "Failed",
};

function StatusPill({ d }: { d: WebhookDelivery }) {
  const cls = d.status === "delivered" ? "ok" : d.status === "failed" ? "bad" : "warn";
  return <span class={`pill ${cls}`}>{STATUS_LABEL[d.status]}</span>;
}

export function WebhookDeliveriesPage({ id }: { id: string }) {
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState<WebhookDeliveryStatus | "">("");
  const key = `webhooks:${id}:deliveries:${page}:${status}`;
  const log = useQuery(key, () =>
    call(WEBHOOK_ROUTES.listWebhookDeliveries, {
      params: { id },
      query: { page: String(page), per_page: String(PER_PAGE), status: status || undefined },
    }),
  );
  const rows = log.data?.data ?? [];
  const pending = rows.some((r) => r.status === "pending");
  useDeliveryRefresh(id, page, pending);
  const totalPages = log.data?.meta.total_pages ?? 1;
  return (
    <>
      <nav class="crumbs" aria-label="Breadcrumb">
        <Link href="/dashboard/webhooks">Webhooks</Link> <span aria-hidden="true">/</span> Delivery log
      </nav>
      <PageHead title="Delivery log" />
      <HookSummary id={id} />
      <div class="toolbar">
        <label for="delivery-status">Show</label>
        <select
          id="delivery-status"
          value={status}
          onChange={(e) => {
            setStatus(e.currentTarget.value as WebhookDeliveryStatus | "");
            setPage(1);
          }}
        >
          <option value="">All deliveries</option>
          <option value="pending">Pending</option>
          <option value="delivered">Delivered</option>
          <option value="failed">Failed</option>
        </select>
        <button type="button" class="btn small" onClick={() => invalidate(`webhooks:${id}:deliveries:`)}>
          Refresh
        </button>
      </div>
      <TableCard
        query={log}
        isEmpty={rows.length === 0}
        loading="Loading deliveries"
        empty="No deliveries yet. They appear here as events happen."
        caption="Deliveries to this endpoint, newest first"
        columns={[
          "Event",
          "Status",
          ["Response", "col-num col-hide"],
          ["Latency", "col-num col-hide"],
          ["Attempts", "col-num col-hide"],
          ["Next attempt", "col-hide"],
          ["Created", "col-hide"],
        ]}
      >
        <tbody>
          {rows.map((r) => (
            <DeliveryRow key={r.id} d={r} />
          ))}
        </tbody>
      </TableCard>
      {totalPages > 1 && <DeliveriesPager page={page} totalPages={totalPages} onPage={setPage} />}
    </>
  );
}

/** The endpoint the log belongs to: its URL, events and state. */
function HookSummary({ id }: { id: string }) {
  const hook = useQuery(`webhooks:${id}`, () =>
    call(WEBHOOK_ROUTES.getWebhook, { params: { id } }).then((r) => r.data),
  );
  return (
    <>
      {hook.error !== undefined && <Failed error={hook.error} />}
      {hook.data && (
        <div class="card hook-summary">
          <dl class="facts">
            <dt>Endpoint</dt>
            <dd class="hook-url">
              <code>{hook.data.url}</code>
            </dd>
            <dt>Events</dt>
            <dd>{hook.data.events.join(", ")}</dd>
            <dt>State</dt>
            <dd>
              <WebhookState hook={hook.data} />
            </dd>
          </dl>
        </div>
      )}
    </>
  );
}

// New deliveries appear and pending ones settle without a reload; polling stops when nothing moves
// on the first page (a later page is history) and the tab is hidden.
function useDeliveryRefresh(id: string, page: number, pending: boolean) {
  useEffect(() => {
    if (page !== 1 && !pending) return;
    const t = setInterval(() => {
      if (document.visibilityState === "visible") invalidate(`webhooks:${id}:deliveries:${page}:`);
    }, REFRESH_MS);
    return () => clearInterval(t);
  }, [id, page, pending]);
}

function DeliveryRow({ d }: { d: WebhookDelivery }) {
  return (
    <tr data-testid="delivery-row">
      <td>
        <code class="event-code">{d.event_type}</code>
      </td>
      <td>
        <StatusPill d={d} />
        {d.error && <div class="muted small">{d.error}</div>}
        <div class="muted small phone-only">
          {d.response_code ?? "No answer"} · {d.attempts} {d.attempts === 1 ? "attempt" : "attempts"}
          {d.latency_ms !== null && ` · ${d.latency_ms} ms`}
        </div>
      </td>
      <td class="col-num col-hide">{d.response_code ?? "—"}</td>
      <td class="col-num col-hide">{d.latency_ms === null ? "—" : `${d.latency_ms} ms`}</td>
      <td class="col-num col-hide">{d.attempts}</td>
      <td class="col-hide">{d.status === "pending" ? fmtDate(d.next_attempt_at, "Now") : "—"}</td>
      <td class="col-hide">{fmtDate(d.created_at)}</td>
    </tr>
  );
}

/** Newer and older pages of the log. */
function DeliveriesPager({
  page,
  totalPages,
  onPage,
}: {
  page: number;
  totalPages: number;
  onPage: (page: number) => void;
}) {
  return (
    <nav class="pager" aria-label="Pages of deliveries">
      <button type="button" class="btn small" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Newer
      </button>
      <span class="pager-note">
        Page {page} of {totalPages}
      </span>
      <button type="button" class="btn small" disabled={page >= totalPages} onClick={() => onPage(page + 1)}>
        Older
      </button>
    </nav>
  );
}

export default WebhookDeliveriesPage;
