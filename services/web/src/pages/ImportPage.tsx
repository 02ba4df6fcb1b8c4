// Import: choose a file and its format (or let Kurz detect it), start a job, watch its progress bar
// (the job is polled until it ends), read the counts, download the refused rows, finish the links that
// need their owner (ImportAttention.tsx); past imports below, each one reopened from its row.
// The upload is the file itself as the body of POST /api/v1/imports (docs/import-export.md). A peer's
// code that is one of Kurz's own paths (`docs`, `c`, …) is kept on a branded domain (the job's
// `domain`) or as PREFIX-code (`rename_reserved`), else refused: the form offers both.
import {
  IMPORT_MAX_BYTES,
  IMPORT_RENAME_PREFIX_MAX_LENGTH,
  IMPORT_ROUTES,
  type ImportJob,
  ImportRenamePrefix,
} from "@kurz/contracts";
import type { RefObject } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { Link } from "wouter-preact";
import { invalidate, useQuery } from "../api/cache.ts";
import { call, urlOf } from "../api/client.ts";
import { useCan, useSession } from "../api/session.ts";
import { upload } from "../api/upload.ts";
import { Failed, fmtDate, PageHead } from "./common.tsx";
import "./data/data.css";
import { FormField, fieldAria, SelectField } from "../components/FormField.tsx";
import { TableCard } from "../components/TableCard.tsx";
import { DownloadLink } from "../components/WorkspaceFiles.tsx";
import { ImportAttention } from "./ImportAttention.tsx";
import { hostOptions, useVerifiedHosts } from "./manage/lists.tsx";

const FORMATS = [
  { value: "auto", label: "Detect automatically" },
  { value: "csv", label: "CSV" },
  { value: "bitly", label: "Bitly export" },
  { value: "shlink", label: "Shlink export" },
  { value: "kutt", label: "Kutt export" },
  { value: "yourls", label: "YOURLS export" },
] as const;
type FormatChoice = (typeof FORMATS)[number]["value"];
const POLL_MS = 1000;
const done = (job: ImportJob) => job.status === "completed" || job.status === "failed";
const errorsUrl = (job: ImportJob) => urlOf(IMPORT_ROUTES.getImportErrors, { params: { id: job.id } });
const PREFIX_RULE = `Up to ${IMPORT_RENAME_PREFIX_MAX_LENGTH} letters, digits, _ and -, at least one a letter or digit`;

function StatusPill({ job }: { job: ImportJob }) {
  const cls = job.status === "completed" ? "ok" : job.status === "failed" ? "bad" : "warn";
  const label = { queued: "Queued", running: "Running", completed: "Completed", failed: "Failed" }[
    job.status
  ];
  return <span class={`pill ${cls}`}>{label}</span>;
}

/** The job being watched: a progress bar, the counts, the first refused rows and the CSV of them all. */
function JobProgress({ job }: { job: ImportJob }) {
  const pct = Math.round(job.progress * 100);
  const c = job.counts;
  return (
    <section class="card import-job" aria-labelledby="job-title" data-testid="import-job">
      <div class="section-head tight">
        <h2 id="job-title">{job.filename ?? "Import"}</h2>
        <StatusPill job={job} />
      </div>
      {(job.domain || job.rename_reserved) && (
        <p class="muted small" data-testid="import-options">
          {job.domain ? (
            <>
              Onto <strong>{job.domain}</strong>
            </>
          ) : (
            <>
              Kurz's own paths kept as <code>{job.rename_reserved}-code</code>
            </>
          )}
        </p>
      )}
      <label for="import-progress" class="progress-label">
        Progress <span data-testid="import-percent">{pct}%</span>
      </label>
      <progress id="import-progress" class="progress" max={100} value={pct}>
        {pct}%
      </progress>
      <JobCounts counts={c} />
      {job.error && (
        <p class="error" role="alert">
          {job.error}
        </p>
      )}
      {job.renamed > 0 && <RenamedCodes job={job} />}
      {job.errors_preview.length > 0 && (
        <>
          <h3 class="small-head">Refused rows</h3>
          <ul class="row-errors">
            {job.errors_preview.map((e) => (
              <li key={e.row}>
                Row {e.row}: {e.error}
              </li>
            ))}
          </ul>
        </>
      )}
      <p class="sr-only" role="status">
        {done(job)
          ? `Import ${job.status}: ${c.created} created${job.renamed > 0 ? ` (${job.renamed} renamed)` : ""}, ${c.skipped} already there, ${c.needs_attention} need you, ${c.failed} refused.`
          : ""}
      </p>
      {done(job) && (
        <div class="toolbar">
          {c.failed > 0 && (
            <DownloadLink class="btn small" href={errorsUrl(job)}>
              Download refused rows (CSV)
            </DownloadLink>
          )}
          {c.created > 0 && (
            <Link class="btn small primary" href="/dashboard/links">
              See the links
            </Link>
          )}
        </div>
      )}
      {done(job) && <ImportAttention job={job} />}
    </section>
  );
}

/** How many rows the job has read, and what became of them. */
function JobCounts({ counts: c }: { counts: ImportJob["counts"] }) {
  return (
    <dl class="counts">
      <div>
        <dt>Rows</dt>
        <dd data-testid="count-total">{c.total.toLocaleString()}</dd>
      </div>
      <div>
        <dt>Created</dt>
        <dd data-testid="count-created">{c.created.toLocaleString()}</dd>
      </div>
      <div>
        <dt>Already there</dt>
        <dd data-testid="count-skipped">{c.skipped.toLocaleString()}</dd>
      </div>
      <div>
        <dt>Need you</dt>
        <dd data-testid="count-needs-attention">{c.needs_attention.toLocaleString()}</dd>
      </div>
      <div>
        <dt>Refused</dt>
        <dd data-testid="count-failed">{c.failed.toLocaleString()}</dd>
      </div>
    </dl>
  );
}

/** The created links whose code is one of Kurz's own paths, kept as PREFIX-code. */
function RenamedCodes({ job }: { job: ImportJob }) {
  return (
    <>
      <h3 class="small-head">Renamed codes</h3>
      <p class="small">
        <span data-testid="count-renamed">{job.renamed.toLocaleString()}</span> of the created links kept a
        code that is one of Kurz's own paths as <code>{job.rename_reserved}-code</code>
        {job.renamed > job.renamed_preview.length
          ? ` (the first ${job.renamed_preview.length} below; search the links for "${job.rename_reserved}-" for all of them):`
          : ":"}
      </p>
      <ul class="row-errors" data-testid="renamed-rows">
        {job.renamed_preview.map((r) => (
          <li key={r.row}>
            Row {r.row}: <code>{r.code}</code> is now <code>{r.short_code}</code>
          </li>
        ))}
      </ul>
    </>
  );
}

export function ImportPage() {
  const [error, setError] = useState<unknown>(null);
  const [job, setJob] = useState<ImportJob | null>(null);
  const canImport = useCan("imports:write");
  useJobPolling(job, setJob, setError);
  return (
    <>
      <PageHead title="Import links" />
      <p class="muted">
        Bring links from a CSV file or another shortener's export. Rows whose link already exists are skipped,
        so running the same file again creates nothing twice.
      </p>
      {canImport ? (
        <ImportForm job={job} onJob={setJob} error={error} onError={setError} />
      ) : (
        <p class="card">Importing is for the workspace's admins and owners; the imports so far are below.</p>
      )}
      {job && <JobProgress job={job} />}
      <PastImports onOpen={setJob} />
    </>
  );
}

/** Polls the watched job until it ends; then the links and the list of imports are out of date. */
function useJobPolling(
  job: ImportJob | null,
  setJob: (job: ImportJob) => void,
  setError: (err: unknown) => void,
) {
  useEffect(() => {
    if (!job || done(job)) return;
    let stopped = false;
    const t = setTimeout(async () => {
      try {
        const { data } = await call(IMPORT_ROUTES.getImport, { params: { id: job.id } });
        if (stopped) return;
        setJob(data);
        if (done(data)) invalidate("imports", "links", "summary");
      } catch (err) {
        if (!stopped) setError(err);
      }
    }, POLL_MS);
    return () => {
      stopped = true;
      clearTimeout(t);
    };
  }, [job]);
}

/** The file, its format, where its links go and the start button; a running job holds the button. */
function ImportForm({
  job,
  onJob,
  error,
  onError,
}: {
  job: ImportJob | null;
  onJob: (job: ImportJob) => void;
  error: unknown;
  onError: (err: unknown) => void;
}) {
  const session = useSession();
  const [file, setFile] = useState<File | null>(null);
  const [format, setFormat] = useState<FormatChoice>("auto");
  const [fetchTitles, setFetchTitles] = useState(false);
  /** Host of a verified branded domain; "" for the public host. */
  const [domain, setDomain] = useState("");
  const [prefix, setPrefix] = useState("");
  const [prefixError, setPrefixError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const prefixInput = useRef<HTMLInputElement>(null);

  const start = async (e: Event) => {
    e.preventDefault();
    onError(null);
    if (!file) {
      onError(new Error("Choose a file to import."));
      fileInput.current?.focus();
      return;
    }
    if (file.size > IMPORT_MAX_BYTES) {
      onError(new Error(`The file is larger than ${IMPORT_MAX_BYTES / 1024 / 1024} MB.`));
      return;
    }
    // On a branded domain Kurz's own paths are the domain's, so the prefix does not apply.
    const renameReserved = domain ? "" : prefix.trim();
    if (renameReserved && !ImportRenamePrefix.safeParse(renameReserved).success) {
      setPrefixError(`${PREFIX_RULE}.`);
      prefixInput.current?.focus();
      return;
    }
    setPrefixError(null);
    if (!session) return;
    setBusy(true);
    try {
      const { data } = await upload(IMPORT_ROUTES.createImport, file, {
        csrfToken: session.csrf_token,
        query: {
          format,
          fetch_titles: fetchTitles ? "true" : undefined,
          filename: file.name.slice(0, 200),
          domain: domain || undefined,
          rename_reserved: renameReserved || undefined,
        },
      });
      onJob(data);
      invalidate("imports");
      if (done(data)) invalidate("links", "summary");
    } catch (err) {
      onError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card form import-form" onSubmit={start} noValidate>
      {error !== null && <Failed error={error} />}
      <FileFields fileInput={fileInput} onFile={setFile} format={format} onFormat={setFormat} />
      <DomainField domain={domain} onDomain={setDomain} />
      <FormField
        id="import-rename"
        label="Prefix for Kurz's own paths (optional)"
        error={prefixError}
        hint={
          domain
            ? "Not needed on a branded domain: such codes are kept as they are."
            : `A code such as docs becomes ${prefix.trim() || "PREFIX"}-docs instead of being refused. ${PREFIX_RULE}.`
        }
      >
        <input
          id="import-rename"
          ref={prefixInput}
          type="text"
          value={domain ? "" : prefix}
          disabled={domain !== ""}
          maxLength={IMPORT_RENAME_PREFIX_MAX_LENGTH}
          autocomplete="off"
          spellcheck={false}
          onInput={(e) => {
            setPrefix(e.currentTarget.value);
            setPrefixError(null);
          }}
          {...fieldAria("import-rename", prefixError, "hint")}
        />
      </FormField>
      <label class="check">
        <input
          type="checkbox"
          checked={fetchTitles}
          onChange={(e) => setFetchTitles(e.currentTarget.checked)}
        />
        Fetch page titles for rows without one (slower)
      </label>
      <div class="form-actions">
        <button type="submit" class="btn primary" disabled={busy || (job !== null && !done(job))}>
          {busy ? "Uploading…" : "Start import"}
        </button>
      </div>
    </form>
  );
}

/** The file to upload and its format, with the size limit and the CSV columns as hints. */
function FileFields({
  fileInput,
  onFile,
  format,
  onFormat,
}: {
  fileInput: RefObject<HTMLInputElement>;
  onFile: (file: File | null) => void;
  format: FormatChoice;
  onFormat: (format: FormatChoice) => void;
}) {
  return (
    <>
      <div class="field">
        <label for="import-file">File</label>
        <input
          id="import-file"
          ref={fileInput}
          type="file"
          accept=".csv,.json,.txt,text/csv,application/json,text/plain"
          onChange={(e) => onFile(e.currentTarget.files?.[0] ?? null)}
          aria-describedby="import-file-hint"
        />
        <p class="hint" id="import-file-hint">
          CSV or JSON, up to {IMPORT_MAX_BYTES / 1024 / 1024} MB.
        </p>
      </div>
      <SelectField
        id="import-format"
        label="Format"
        value={format}
        options={FORMATS}
        onValue={onFormat}
        hint={
          <>
            CSV columns: <code>url</code> (required), <code>alias</code>, <code>title</code>,{" "}
            <code>expires_at</code>, <code>password</code>; others are ignored.
          </>
        }
      />
    </>
  );
}

/** The host the links live on: the public one or a verified branded domain. */
function DomainField({ domain, onDomain }: { domain: string; onDomain: (host: string) => void }) {
  const hosts = useVerifiedHosts();
  return (
    <SelectField
      id="import-domain"
      label="Domain"
      value={domain}
      options={hostOptions(hosts)}
      onValue={onDomain}
      hint={
        <>
          {"The links live on this host. On a branded domain, a code that is one of Kurz's own paths ("}
          <code>docs</code>, <code>c</code>
          {", …) is kept as it is."}
          {hosts.length === 0 && (
            <>
              {" To choose one here, verify it on the "}
              <Link href="/dashboard/domains">Domains</Link>
              {" page."}
            </>
          )}
        </>
      }
    />
  );
}

/** The last imports, newest first; one whose links need the owner reopens as the watched job. */
function PastImports({ onOpen }: { onOpen: (job: ImportJob) => void }) {
  const past = useQuery("imports", () => call(IMPORT_ROUTES.listImports, { query: { per_page: "10" } }));
  const jobs = past.data?.data ?? [];
  return (
    <>
      <div class="section-head">
        <h2>Past imports</h2>
      </div>
      <TableCard
        query={past}
        isEmpty={jobs.length === 0}
        loading="Loading imports"
        empty="No imports yet."
        caption="Your imports, newest first"
        columns={[
          "File",
          "Status",
          ["Created", "col-num col-hide"],
          ["Skipped", "col-num col-hide"],
          ["Need you", "col-num"],
          ["Refused", "col-num"],
          ["Started", "col-hide"],
        ]}
      >
        <tbody>
          {jobs.map((j) => (
            <PastImportRow key={j.id} job={j} onOpen={onOpen} />
          ))}
        </tbody>
      </TableCard>
    </>
  );
}

function PastImportRow({ job: j, onOpen }: { job: ImportJob; onOpen: (job: ImportJob) => void }) {
  return (
    <tr data-testid="import-row">
      <td>
        {j.filename ?? "—"}
        <div class="muted small">
          {j.format}
          <span class="phone-only">{j.counts.created.toLocaleString()} created</span>
        </div>
      </td>
      <td>
        <StatusPill job={j} />
      </td>
      <td class="col-num col-hide">{j.counts.created.toLocaleString()}</td>
      <td class="col-num col-hide">{j.counts.skipped.toLocaleString()}</td>
      <td class="col-num">
        {j.counts.needs_attention > 0 && done(j) ? (
          <button type="button" class="btn small" onClick={() => onOpen(j)}>
            {j.counts.needs_attention.toLocaleString()}
            <span class="sr-only"> links of {j.filename ?? "this import"} need you, show them</span>
          </button>
        ) : (
          j.counts.needs_attention.toLocaleString()
        )}
      </td>
      <td class="col-num">
        {j.counts.failed > 0 ? (
          <DownloadLink href={errorsUrl(j)}>
            {j.counts.failed.toLocaleString()}
            <span class="sr-only"> refused rows of {j.filename ?? "this import"}, download CSV</span>
          </DownloadLink>
        ) : (
          0
        )}
      </td>
      <td class="col-hide">{fmtDate(j.created_at)}</td>
    </tr>
  );
}

export default ImportPage;
