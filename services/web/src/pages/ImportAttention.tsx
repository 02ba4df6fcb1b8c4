// An import's rows that became inactive links needing their owner (GET /api/v1/imports/:id/attention):
// a link protected at its source whose password the export left out. Each row is finished here with the
// links API's own PATCH: a password (the one its visitors knew at the source, so they keep using it)
// and is_active, in one request. A finished row stays listed, marked done.
import { IMPORT_ROUTES, type ImportAttentionRow, type ImportJob, V1_ROUTES } from "@kurz/contracts";
import { useState } from "preact/hooks";
import { Link } from "wouter-preact";
import { invalidate, useQuery } from "../api/cache.ts";
import { call, fieldError, messageOf } from "../api/client.ts";
import { useCan } from "../api/session.ts";
import { fieldAria } from "../components/FormField.tsx";
import { Failed } from "./common.tsx";

const PER_PAGE = 50;
const attentionKey = (jobId: string, page: number) => `import-attention:${jobId}:${page}`;

/** One row: what it is, why it waits, and its password field with the button that finishes it. */
function AttentionItem({ jobId, row }: { jobId: string; row: ImportAttentionRow }) {
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const code = row.link?.short_code ?? row.alias ?? `row ${row.row}`;
  const id = `attention-${row.row}`;
  const finished = row.link?.is_active === true;
  const canWrite = useCan("links:write");

  const finish = async (e: Event) => {
    e.preventDefault();
    setError(null);
    if (!password) {
      setError(new Error("Enter the password visitors must give to follow this link."));
      return;
    }
    setBusy(true);
    try {
      await call(V1_ROUTES.updateLink, {
        params: { id: row.link_id },
        body: { password, is_active: true },
      });
      setPassword("");
      invalidate(`import-attention:${jobId}`, "links", "summary", `link:${row.link_id}`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const message = error === null ? null : (fieldError(error, "password") ?? messageOf(error));
  return (
    <li class="attention-item" data-testid="attention-row">
      <div class="attention-what">
        <strong>{code}</strong> <span class="muted small">row {row.row}</span>
        <div class="muted small attention-url">{row.url}</div>
      </div>
      {row.link === null ? (
        <p class="muted small">This link has been deleted since the import.</p>
      ) : finished ? (
        <p class="small">
          <span class="pill ok">Active</span>{" "}
          {row.link.has_password ? "Protected by its password." : "Active without a password."}{" "}
          <Link href={`/dashboard/links/${row.link_id}`}>Open the link</Link>
        </p>
      ) : !canWrite ? (
        <p class="small">
          <span class="pill warn">Inactive</span> {row.reason}
        </p>
      ) : (
        <form class="attention-form" onSubmit={finish} noValidate>
          <p class="small" id={`${id}-reason`}>
            <span class="pill warn">Inactive</span> {row.reason}
          </p>
          <div class="field">
            <label for={id}>Password for {code}</label>
            <input
              id={id}
              type="password"
              autoComplete="new-password"
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
              {...fieldAria(id, message, "hint")}
            />
            {message ? (
              <p class="field-error" id={`${id}-note`} role="alert">
                {message}
              </p>
            ) : (
              <p class="hint" id={`${id}-note`}>
                The password visitors used before, so they keep using it.
              </p>
            )}
          </div>
          <button type="submit" class="btn small primary" disabled={busy}>
            {busy ? (
              "Saving…"
            ) : (
              <>
                Set password and activate<span class="sr-only"> {code}</span>
              </>
            )}
          </button>
        </form>
      )}
    </li>
  );
}

/** The job's rows that need their owner, a page at a time. */
export function ImportAttention({ job }: { job: ImportJob }) {
  const [page, setPage] = useState(1);
  const rows = useQuery(job.counts.needs_attention > 0 ? attentionKey(job.id, page) : null, () =>
    call(IMPORT_ROUTES.getImportAttention, {
      params: { id: job.id },
      query: { page: String(page), per_page: String(PER_PAGE) },
    }),
  );
  if (job.counts.needs_attention === 0) return null;
  const data = rows.data?.data ?? [];
  const pages = rows.data?.meta.total_pages ?? 1;
  const waiting = data.filter((r) => r.link !== null && !r.link.is_active).length;
  return (
    <section class="attention" aria-labelledby="attention-title" data-testid="import-attention">
      <h3 id="attention-title" class="small-head">
        Links that need you ({job.counts.needs_attention.toLocaleString()})
      </h3>
      <p class="muted small">
        These links were created inactive: visitors get “not found” until you set a password and activate each
        one.
      </p>
      {rows.error !== undefined && rows.error !== null && <Failed error={rows.error} />}
      {rows.loading && data.length === 0 ? (
        <p class="muted" role="status">
          Loading the links that need you
        </p>
      ) : (
        <ul class="attention-list">
          {data.map((row) => (
            <AttentionItem key={row.row} jobId={job.id} row={row} />
          ))}
        </ul>
      )}
      <p class="sr-only" role="status">
        {rows.data ? `${waiting} of these links still inactive on this page.` : ""}
      </p>
      {pages > 1 && (
        <div class="toolbar">
          <button type="button" class="btn small" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous
          </button>
          <span class="muted small">
            Page {page} of {pages}
          </span>
          <button type="button" class="btn small" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            Next
          </button>
        </div>
      )}
    </section>
  );
}
