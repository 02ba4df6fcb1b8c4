// One link: its details and actions, its destination's health, its analytics in the chosen range, what
// it shares publicly, and the QR designer.
import { AnalyticsSharedField, type LinkWithSharedFields, V1_ROUTES } from "@kurz/contracts";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { Link, useLocation } from "wouter-preact";
import { invalidate, useQuery } from "../api/cache.ts";
import { call, messageOf } from "../api/client.ts";
import { useCan } from "../api/session.ts";
import { AnalyticsPanels } from "../components/AnalyticsPanels.tsx";
import { Confirm } from "../components/Confirm.tsx";
import { CopyButton } from "../components/CopyButton.tsx";
import { Dialog } from "../components/Dialog.tsx";
import { Checkboxes } from "../components/FormField.tsx";
import { LinkForm } from "../components/LinkForm.tsx";
import { QrDesigner } from "../components/QrDesigner.tsx";
import { RangePicker } from "../components/RangePicker.tsx";
import { type Range, rangeKey, rangeQuery } from "../ranges.ts";
import { BrokenBadge, Failed, fmtDate, Loading, PageHead } from "./common.tsx";
import { LinkHealthCard } from "./LinkHealthCard.tsx";

const SECTION_LABELS: Record<AnalyticsSharedField, string> = {
  overview: "Overview (clicks, unique visitors, chart)",
  locations: "Locations (countries, cities)",
  devices: "Devices and operating systems",
  referrers: "Referrers",
  browsers: "Browsers",
};

function Sharing({ link }: { link: LinkWithSharedFields }) {
  const [error, setError] = useState("");
  // Shown as chosen at once; the server's answer (refetched) confirms it, a refusal puts it back.
  const [isPublic, setPublic] = useState(link.analytics_public);
  const [shared, setShared] = useState<AnalyticsSharedField[]>(
    link.analytics_shared_fields ?? AnalyticsSharedField.options,
  );
  // A server copy that lands while a save is under way predates it; the save's own refetch follows.
  const saving = useRef(false);
  useEffect(() => {
    if (saving.current) return;
    setPublic(link.analytics_public);
    setShared(link.analytics_shared_fields ?? AnalyticsSharedField.options);
  }, [link]);
  // One save at a time: each sends the whole choice, computed from the one before it.
  const [busy, setBusy] = useState(false);
  const save = async (body: {
    analytics_public?: boolean;
    analytics_shared_fields?: AnalyticsSharedField[];
  }) => {
    setError("");
    setBusy(true);
    saving.current = true;
    if (body.analytics_public !== undefined) setPublic(body.analytics_public);
    if (body.analytics_shared_fields) setShared(body.analytics_shared_fields);
    try {
      await call(V1_ROUTES.updateLink, { params: { id: link.id }, body });
    } catch (err) {
      setError(messageOf(err));
    }
    saving.current = false;
    setBusy(false);
    invalidate(`link:${link.id}`, "links");
  };
  const publicUrl = `${location.origin}/stats/${link.short_code}`;
  // A role that may not change links sees the choice, not a switch it would be refused.
  const readOnly = !useCan("links:write");
  return (
    <section class="card" aria-labelledby="share-title">
      <h2 class="card-title" id="share-title">
        Public statistics
      </h2>
      <label class="switch-row">
        <input
          type="checkbox"
          role="switch"
          disabled={busy || readOnly}
          aria-checked={isPublic}
          checked={isPublic}
          onChange={(e) => save({ analytics_public: e.currentTarget.checked })}
        />
        Share statistics publicly
      </label>
      {isPublic && (
        <>
          <div class="share-url">
            <a href={publicUrl} target="_blank" rel="noopener">
              {publicUrl}
            </a>
            <CopyButton text={publicUrl} label="Copy" what="public statistics URL" />
          </div>
          <fieldset class="sections" disabled={busy || readOnly}>
            <legend>Shared sections</legend>
            <Checkboxes
              name="shared"
              options={AnalyticsSharedField.options}
              picked={shared}
              onPick={(next) => void save({ analytics_shared_fields: next })}
              label={(field) => SECTION_LABELS[field]}
            />
          </fieldset>
        </>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

/** What the link is and does, as pills beside its short URL. */
function LinkPills({ link: l }: { link: LinkWithSharedFields }) {
  const rules = l.rules?.length ?? 0;
  return (
    <>
      <span class={`pill ${l.is_active ? "ok" : "off"}`}>{l.is_active ? "Active" : "Inactive"}</span>
      {l.has_password && <span class="pill">Password</span>}
      <BrokenBadge link={l} />
      {rules > 0 && <span class="pill">{rules === 1 ? "1 rule" : `${rules} rules`}</span>}
      {l.split && <span class="pill">Split</span>}
      {l.max_clicks != null && <span class="pill">Up to {l.max_clicks.toLocaleString()} clicks</span>}
      {l.og && <span class="pill">Preview</span>}
    </>
  );
}

export function LinkPage({ id }: { id: string }) {
  const [, navigate] = useLocation();
  const [range, setRange] = useState<Range>({ key: "7d" });
  const [dialog, setDialog] = useState<"edit" | "delete" | null>(null);
  const canWrite = useCan("links:write");
  const query = useMemo(() => rangeQuery(range), [rangeKey(range)]);
  const link = useQuery(`link:${id}`, () => call(V1_ROUTES.getLink, { params: { id } }).then((r) => r.data));
  const stats = useQuery(`link:${id}:analytics:${rangeKey(range)}`, () =>
    call(V1_ROUTES.getLinkAnalytics, { params: { link_id: id }, query }).then((r) => r.data),
  );
  const l = link.data;
  if (link.error) return <Failed error={link.error} />;
  if (!l) return <Loading what="Loading link" />;
  return (
    <>
      <p class="crumbs">
        <Link href="/dashboard/links">← Links</Link>
      </p>
      <PageHead title={l.title || `/${l.short_code}`}>
        {canWrite && (
          <>
            <button type="button" class="btn" onClick={() => setDialog("edit")}>
              Edit
            </button>
            <button
              type="button"
              class="btn"
              onClick={async () => {
                await call(V1_ROUTES.updateLink, { params: { id }, body: { is_active: !l.is_active } });
                invalidate(`link:${id}`, "links", "summary");
              }}
            >
              {l.is_active ? "Deactivate" : "Activate"}
            </button>
            <button type="button" class="btn danger" onClick={() => setDialog("delete")}>
              Delete
            </button>
          </>
        )}
      </PageHead>
      <section class="card link-head">
        <div class="short-line">
          <a href={l.short_url} class="short big" target="_blank" rel="noopener" data-testid="short-url">
            {l.short_url.replace(/^https?:\/\//, "")}
          </a>
          <CopyButton text={l.short_url} label="Copy" what={`short URL of ${l.short_code}`} />
          <LinkPills link={l} />
        </div>
        <p class="dest">
          →{" "}
          <a href={l.original_url} rel="noopener noreferrer">
            {l.original_url}
          </a>
        </p>
        <p class="muted small">
          Created {fmtDate(l.created_at)} · Expires {fmtDate(l.expires_at)}
        </p>
        {l.broken_since && (
          <p class="small" data-testid="broken-note">
            The destination has failed its health checks since {fmtDate(l.broken_since)}.{" "}
            {l.broken_url ? (
              <>
                Visitors go to <a href={l.broken_url}>{l.broken_url}</a> until it answers again.
              </>
            ) : (
              "Visitors are still sent to it."
            )}
          </p>
        )}
      </section>
      <LinkHealthCard linkId={id} />
      <div class="section-head">
        <h2>Analytics</h2>
        <RangePicker value={range} onChange={setRange} />
      </div>
      {stats.error !== undefined && <Failed error={stats.error} />}
      {stats.data ? (
        <AnalyticsPanels data={stats.data} query={query} />
      ) : (
        !stats.error && <Loading what="Loading analytics" />
      )}
      <Sharing link={l} />
      <section class="card" id="qr" aria-labelledby="qr-title">
        <h2 class="card-title" id="qr-title">
          QR code
        </h2>
        <QrDesigner code={l.short_code} />
      </section>
      {dialog === "edit" && (
        <Dialog title={`Edit ${l.short_code}`} onClose={() => setDialog(null)} wide>
          <LinkForm link={l} onCancel={() => setDialog(null)} onDone={() => setDialog(null)} />
        </Dialog>
      )}
      {dialog === "delete" && (
        <Confirm
          title="Delete this link?"
          confirmLabel="Delete"
          danger
          onClose={() => setDialog(null)}
          onConfirm={async () => {
            await call(V1_ROUTES.deleteLink, { params: { id } });
            invalidate("links", "summary");
            navigate("/dashboard/links", { replace: true });
          }}
        >
          <p>
            <code>{l.short_url}</code> will stop working and its click data is deleted. This cannot be undone.
          </p>
        </Confirm>
      )}
    </>
  );
}
