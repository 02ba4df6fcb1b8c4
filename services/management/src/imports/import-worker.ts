// Runs import jobs inside management (docs/import-export.md). A worker runs up to `concurrency` jobs at
// once, each of another account, claimed with a lease (`lease_until`); it reads a job's file and commits
// it batch by batch (import-batch.ts), renewing the lease with each batch. Accounts take turns: a job
// that has run for `sliceMs` while another account's job waits hands its lease back after its batch and
// goes behind that job (claims take the job that has waited longest since it last ran). A worker that
// stops cleanly hands its jobs back at once; one that crashed leaves leases that expire, and the next
// worker resumes each job after its last committed batch.
import type { ImportFormat } from "@kurz/contracts";
import { type PrismaClient, poolOf } from "@kurz/db";
import { PollLoop } from "@kurz/service-kit";
import pLimit from "p-limit";
import type { RedirectRecords } from "../projections/link-records.ts";
import { fallbackTitle, type TitleFetcher } from "../titles/title-fetcher.ts";
import {
  type BatchResult,
  commitPreparedBatch,
  ImportJobMoved,
  type PreparedBatch,
  prepareBatch,
  type RowWork,
} from "./import-batch.ts";
import { ImportFileError } from "./import-file.ts";
import { type ImportRowsReader, importFileThreads } from "./import-file-threads.ts";
import { codeOptionsOf } from "./import-rows.ts";
import type { PasswordHashPool } from "./password-hash-pool.ts";

export interface ImportWorkerDeps {
  prisma: PrismaClient;
  records: Pick<RedirectRecords, "putMany">;
  titles: Pick<TitleFetcher, "titleFor">;
  /** Charges `wanting` title fetches to a job's budget (its `title_budget`); returns how many it may make. */
  chargeTitles: (budget: string, wanting: number) => Promise<number>;
  hashes: Pick<PasswordHashPool, "hash"> & Partial<Pick<PasswordHashPool, "forget">>;
  onEventsWritten: () => void;
  retiredCodeGraceMs: number;
  logger: { info(o: object, m?: string): void; error(o: object, m?: string): void };
  batchSize: number;
  leaseMs: number;
  pollMs: number;
  /** Jobs this worker runs at once (each of another account). */
  concurrency?: number;
  /** How long a job runs before it gives its turn to a job of another account that is waiting. */
  sliceMs?: number;
}

export interface ClaimedJob {
  id: string;
  accountId: string;
  format: ImportFormat;
  fetchTitles: boolean;
  /** Whose rate budget its title fetches are charged to; null: none (an operator's CLI run). */
  titleBudget: string | null;
  /** The branded domain its links live on (null: the public host). */
  domainId: number | null;
  renameReserved: string | null;
  content: Buffer;
  processed: number;
}

const TITLE_CONCURRENCY = 8;

// A job is claimable when nobody holds it (queued, handed back, or its worker's lease expired) and no
// job of its account is held: an account's second job waits for its first, so the jobs running are
// each another account's. The one that has waited longest since it last ran (`updated_at`) goes first.
// Two workers claiming at the same instant may each take one job of the same account; the next claims
// see both held.
const CLAIMABLE = `
  SELECT j.id FROM import_jobs j
  WHERE j.status IN ('queued', 'running') AND (j.lease_until IS NULL OR j.lease_until < now())
    AND NOT EXISTS (SELECT 1 FROM import_jobs h
                    WHERE h.account_id = j.account_id AND h.status = 'running' AND h.lease_until >= now())`;

/** Takes the job that has waited longest of the accounts with no job running. */
export async function claimImportJob(prisma: PrismaClient, leaseMs: number): Promise<ClaimedJob | null> {
  // On the plain pool, not through Prisma: every idle management instance runs this once a second, and
  // a Prisma query there cost several times a plain one's CPU (decision 0003's reason for the relay).
  const {
    rows: [job],
  } = await poolOf(prisma).query<{
    id: string;
    account_id: string;
    format: string;
    fetch_titles: boolean;
    title_budget: string | null;
    domain_id: number | null;
    rename_reserved: string | null;
    content: Buffer | null;
    processed: number;
  }>({
    name: "kurz_claim_import_job",
    text: `UPDATE import_jobs SET status = 'running', updated_at = now(),
             lease_until = now() + make_interval(secs => $1::float8)
           WHERE id = (${CLAIMABLE} ORDER BY j.updated_at, j.created_at LIMIT 1 FOR UPDATE OF j SKIP LOCKED)
           RETURNING id, account_id, format, fetch_titles, title_budget, domain_id, rename_reserved, content,
             processed`,
    values: [leaseMs / 1000],
  });
  if (!job) return null;
  return {
    id: job.id,
    accountId: job.account_id,
    format: job.format as ImportFormat,
    fetchTitles: job.fetch_titles,
    titleBudget: job.title_budget,
    domainId: job.domain_id,
    renameReserved: job.rename_reserved,
    content: job.content ?? Buffer.alloc(0), // node-postgres reads bytea as a Buffer: no copy of the file
    processed: job.processed,
  };
}

/** Whether a job of another account than `accountId` is waiting for a turn. */
async function anotherAccountWaits(prisma: PrismaClient, accountId: string): Promise<boolean> {
  const { rows } = await poolOf(prisma).query({
    name: "kurz_import_job_waiting",
    text: `${CLAIMABLE} AND j.account_id <> $1::uuid LIMIT 1`,
    values: [accountId],
  });
  return rows.length > 0;
}

export interface RunOptions {
  /** Stop after this many batches (tests interrupt a job with it); the job stays claimed. */
  maxBatches?: number;
  shouldStop?: () => boolean;
  /** Asked after each committed batch: true ends the run there (the job is not finished). */
  shouldYield?: () => Promise<boolean>;
  onProgress?: (p: { processed: number; total: number }) => void;
}

/** Why a prepared batch was not used: the run ended after the batch before it. */
class RunEnded extends Error {}

/** Processes a claimed job to its end (or until told to stop). Returns true when the job finished. */
export async function runImportJob(
  deps: Omit<ImportWorkerDeps, "concurrency" | "sliceMs">,
  job: ClaimedJob,
  opts: RunOptions = {},
): Promise<boolean> {
  const rows = await openRows(deps, job);
  if (!rows) return true;
  const stopLease = keepLease(deps, job);
  try {
    return await runBatches(deps, job, rows, rowWorkOf(deps, job), opts);
  } finally {
    stopLease();
    rows.close();
    deps.hashes.forget?.(job.id);
  }
}

/**
 * The job's rows, read and checked on a thread (import-file-threads.ts) that hands them back a batch at
 * a time from the first row not yet committed; null when the file cannot be read (the job then failed).
 */
async function openRows(
  deps: Pick<ImportWorkerDeps, "prisma" | "batchSize">,
  job: ClaimedJob,
): Promise<ImportRowsReader | null> {
  try {
    return await importFileThreads().open(job.content, job.format, {
      from: job.processed,
      batchSize: deps.batchSize,
      codes: codeOptionsOf(job),
    });
  } catch (err) {
    if (!(err instanceof ImportFileError)) throw err;
    await finishJob(deps.prisma, job.id, "failed", err.message);
    return null;
  }
}

/** The per-row work a job's batches share: titles charged to its budget, passwords hashed for it. */
function rowWorkOf(
  deps: Pick<ImportWorkerDeps, "titles" | "chargeTitles" | "hashes">,
  job: ClaimedJob,
): RowWork {
  const limit = pLimit(TITLE_CONCURRENCY);
  return {
    fetchTitles: job.fetchTitles,
    // Each fetch is charged to the job's budget before it is made (title-budget.ts); the rows beyond
    // what the budget has left get the host name, as a bulk create's do.
    titlesFor: async (urls) => {
      if (urls.length === 0) return [];
      const allowed =
        job.titleBudget === null ? urls.length : await deps.chargeTitles(job.titleBudget, urls.length);
      return Promise.all(
        urls.map((url, i) => (i < allowed ? limit(() => deps.titles.titleFor(url)) : fallbackTitle(url))),
      );
    },
    hashPassword: (password) => deps.hashes.hash(password, job.id),
  };
}

/**
 * Renews the job's lease while this worker is alive, so that only a dead worker's lease expires: a batch
 * renews it when it commits, but a slow one (titles fetched for 1,000 rows) could outlast it. Returns
 * the function that stops renewing.
 */
function keepLease(deps: Pick<ImportWorkerDeps, "prisma" | "leaseMs">, job: ClaimedJob): () => void {
  const heartbeat = setInterval(
    () => {
      deps.prisma.$executeRaw`
      UPDATE import_jobs SET lease_until = now() + make_interval(secs => ${deps.leaseMs / 1000}::float8)
      WHERE id = ${job.id}::uuid AND status = 'running'`.catch(() => {});
    },
    Math.max(50, deps.leaseMs / 3),
  );
  return () => clearInterval(heartbeat);
}

/**
 * Commits the job's remaining batches. The next batch is prepared while the current one commits
 * (Postgres' work), and the redirect records of a committed batch go to Redis while the next one runs;
 * the job ends only after its last records are written. A batch with passwords or titles does its slow
 * part only once the batch before it committed and the run goes on (`ready`), so it knows what it will
 * write. Batches are prepared one after another, in file order: each takes the reader's next rows.
 */
async function runBatches(
  deps: Omit<ImportWorkerDeps, "concurrency" | "sliceMs">,
  job: ClaimedJob,
  rows: ImportRowsReader,
  work: RowWork,
  opts: RunOptions,
): Promise<boolean> {
  const batchDeps = {
    prisma: deps.prisma,
    retiredCodeGraceMs: deps.retiredCodeGraceMs,
    leaseMs: deps.leaseMs,
  };
  let processed = job.processed;
  let batches = 0;
  const prepare = (ready: Promise<unknown>) => {
    const batch = rows.next().then((checked) => {
      if (checked.length === 0) throw new Error("the import file has fewer rows than its job counts");
      return prepareBatch(batchDeps, work, job, checked, ready);
    });
    // Its failure is the loop's to throw when it gets there, not an unhandled rejection before then.
    batch.catch(() => {});
    return batch;
  };
  const stopAfter = (count: number) =>
    opts.shouldStop?.() || (opts.maxBatches !== undefined && count >= opts.maxBatches);
  let next: Promise<PreparedBatch> | null = processed < rows.total ? prepare(Promise.resolve()) : null;
  let records = Promise.resolve();
  try {
    while (next) {
      if (stopAfter(batches)) return false;
      const batch = await next;
      const commit = commitPreparedBatch(batchDeps, job, processed, batch);
      // After this batch: go on (prepare the next), or end the run here.
      const counted = batches + 1;
      const goOn = commit.then(async () => !stopAfter(counted) && !(await opts.shouldYield?.()));
      goOn.catch(() => {});
      const ready = goOn.then((yes) => {
        if (!yes) throw new RunEnded();
      });
      ready.catch(() => {}); // a batch prepared without waiting for it never reads it
      next = processed + batch.size < rows.total ? prepare(ready) : null;
      let result: BatchResult;
      try {
        result = await commit;
      } catch (err) {
        if (err instanceof ImportJobMoved) return false; // another worker holds it now
        throw err;
      }
      processed += batch.size;
      batches++;
      if (result.created.length > 0) {
        deps.onEventsWritten();
        const created = result.created;
        records = records.then(() => deps.records.putMany(created));
      }
      opts.onProgress?.({ processed, total: rows.total });
      if (next && !(await goOn)) return false;
    }
  } finally {
    await records;
    // A batch prepared but not committed (stopped, or moved) is dropped once its preparation ends.
    await next?.catch(() => {});
  }
  await finishJob(deps.prisma, job.id, "completed", null);
  return true;
}

async function finishJob(
  prisma: PrismaClient,
  id: string,
  status: "completed" | "failed",
  error: string | null,
) {
  // The file is not needed any more; the counts and row errors stay.
  await prisma.$executeRaw`
    UPDATE import_jobs SET status = ${status}, error = ${error}, content = NULL, lease_until = NULL,
      finished_at = now(), updated_at = now()
    WHERE id = ${id}::uuid`;
}

/** Hands a job back without waiting for its lease to expire, behind the jobs waiting for a turn. */
async function releaseJob(prisma: PrismaClient, id: string) {
  await prisma.$executeRaw`
    UPDATE import_jobs SET lease_until = NULL, updated_at = now() WHERE id = ${id}::uuid AND status = 'running'`;
}

export class ImportWorker {
  private readonly loop: PollLoop;
  private readonly running = new Set<Promise<void>>();
  private readonly concurrency: number;
  private readonly sliceMs: number;

  constructor(private readonly deps: ImportWorkerDeps) {
    this.concurrency = deps.concurrency ?? 2;
    this.sliceMs = deps.sliceMs ?? 30_000;
    this.loop = new PollLoop({
      pollMs: deps.pollMs,
      round: () => this.claimMore(),
      onError: (err) =>
        deps.logger.error({ err: String(err) }, "import job failed; it resumes when its lease expires"),
    });
  }

  start(): void {
    this.loop.start();
  }

  /** A job was queued (or one ended): look now rather than at the next poll. */
  wake(): void {
    this.loop.wake();
  }

  /** Claims jobs while it has room; true when it took one (another may be waiting). */
  private async claimMore(): Promise<boolean> {
    if (this.running.size >= this.concurrency) return false;
    const job = await claimImportJob(this.deps.prisma, this.deps.leaseMs);
    if (!job) return false;
    const run = this.runOne(job).finally(() => {
      this.running.delete(run);
      this.wake();
    });
    this.running.add(run);
    return true;
  }

  private async runOne(job: ClaimedJob): Promise<void> {
    const started = performance.now();
    let yielded = false;
    try {
      const finished = await runImportJob(this.deps, job, {
        shouldStop: () => this.loop.stopped,
        shouldYield: async () => {
          if (performance.now() - started < this.sliceMs) return false;
          yielded = await anotherAccountWaits(this.deps.prisma, job.accountId);
          return yielded;
        },
      });
      if (!finished && (this.loop.stopped || yielded)) await releaseJob(this.deps.prisma, job.id);
      this.deps.logger.info({ job: job.id, finished, yielded }, "import job run ended");
    } catch (err) {
      if (this.loop.stopped) {
        // Stopping (its hashes were dropped): handed back for the next worker, not left to expire.
        await releaseJob(this.deps.prisma, job.id).catch(() => {});
        return;
      }
      this.deps.logger.error({ err: String(err) }, "import job failed; it resumes when its lease expires");
    }
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    await Promise.all(this.running);
  }
}
