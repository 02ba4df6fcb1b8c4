// A link's destination health on its page (docs/health.md): the last check's state, since when the
// link is broken, and "Check now" for a role that may change links.
import { BROKEN_AFTER_FAILURES, HEALTH_ROUTES, type HealthState } from "@kurz/contracts";
import { useState } from "preact/hooks";
import { invalidate, useQuery } from "../api/cache.ts";
import { call, messageOf } from "../api/client.ts";
import { useCan } from "../api/session.ts";
import { Failed, fmtDate } from "./common.tsx";

/** Each state as a sentence a link's owner reads. */
const STATE_LABELS: Record<HealthState, string> = {
  ok: "Answering",
  redirected: "Answering at a new address",
  client_error: "Client error (4xx)",
  server_error: "Server error (5xx)",
  tls_error: "TLS or certificate error",
  dns_error: "The host does not resolve",
  timeout: "No answer in time",
  connection_error: "Connection refused or reset",
  redirect_loop: "Redirect loop",
  refused: "Not checked (not a public web address)",
};

export function LinkHealthCard({ linkId }: { linkId: string }) {
  const canWrite = useCan("links:write");
  const health = useQuery(`link-health:${linkId}`, () =>
    call(HEALTH_ROUTES.getLinkHealth, { params: { id: linkId } }).then((r) => r.data),
  );
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const checkNow = async () => {
    setBusy(true);
    setError("");
    try {
      await call(HEALTH_ROUTES.checkLinkHealth, { params: { id: linkId } });
      // The check may have broken or recovered the link: its badge, the list and the overview count.
      invalidate(`link-health:${linkId}`, `link:${linkId}`, "links");
    } catch (err) {
      setError(messageOf(err));
    }
    setBusy(false);
  };
  const h = health.data;
  const current = h?.current ?? null;
  return (
    <section class="card" aria-labelledby="health-title">
      <h2 class="card-title" id="health-title">
        Destination health
      </h2>
      {health.error !== undefined && <Failed error={health.error} />}
      {h && (
        <dl class="facts">
          <dt>Last check</dt>
          <dd data-testid="health-state">
            {current
              ? `${STATE_LABELS[current.state]}${current.status_code !== null ? ` (${current.status_code})` : ""}, ${fmtDate(current.checked_at)}`
              : "Not checked yet"}
          </dd>
          {h.broken_since ? (
            <>
              <dt>Broken since</dt>
              <dd>{fmtDate(h.broken_since)}</dd>
            </>
          ) : (
            h.consecutive_failures > 0 && (
              <>
                <dt>Failed checks in a row</dt>
                <dd>
                  {h.consecutive_failures} (broken at {BROKEN_AFTER_FAILURES})
                </dd>
              </>
            )
          )}
        </dl>
      )}
      {canWrite && (
        <p>
          <button type="button" class="btn small" disabled={busy} onClick={checkNow}>
            {busy ? "Checking…" : "Check now"}
          </button>
        </p>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
