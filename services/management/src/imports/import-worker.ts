// Runs import jobs inside management (docs/import-export.md). A worker claims one job at a time with a
// lease (`lease_until`), reads its file once and commits it batch by batch (import-batch.ts), renewing
// the lease with each batch. A worker that stops cleanly hands the job back at once; one that crashed
// leaves a lease that expires, and the next worker resumes the job after its last committed batch.
import type { ImportFormat } from "@kurz/contracts";
import { type PrismaClient, poolOf } from "@kurz/db";
import { PollLoop } from "@kurz/service-kit";
import pLimit from "p-limit";
import type { RedirectRecords } from "../redirect-records.ts";
import { fallbackTitle, type TitleFetcher } from "../title-fetcher.ts";
import { type BatchResult, commitPreparedBatch, ImportJobMoved, prepareBatch } from "./import-batch.ts";
import { ImportFileError, readImportFile } from "./import-file.ts";

export interface ImportWorkerDeps {
  prisma: PrismaClient;
  records: Pick<RedirectRecords, "putMany">;
  titles: Pick<TitleFetcher, "titleFor">;
  onEventsWritten: () => void;
  retiredCodeGraceMs: number;
  logger: { info(o: object, m?: string): void; error(o: object, m?: string): void };
  batchSize: number;
  leaseMs: number;
  pollMs: number;
}

export interface ClaimedJob {
  id: string;
  accountId: string;
  format: ImportFormat;
  fetchTitles: boolean;
  content: Buffer;
  processed: number;
}

const TITLE_CONCURRENCY = 8;

/** Takes the oldest job nobody holds (queued, or running with an expired lease). */
export async function claimImportJob(prisma: PrismaClient, leaseMs: number): Promise<ClaimedJob | null> {
  // On the plain pool, not through Prisma: every idle management instance runs this once a second, and
  // a Prisma query there cost several times a plain one's CPU (decision 0046's reason for the relay).
  const {
    rows: [job],
  } = await poolOf(prisma).query<{
    id: string;
    account_id: string;
    format: string;
    fetch_titles: boolean;
    content: Buffer | null;
    processed: number;
  }>({
    name: "kurz_claim_import_job",
    text: `UPDATE import_jobs SET status = 'running', updated_at = now(),
             lease_until = now() + make_interval(secs => $1::float8)
           WHERE id = (SELECT id FROM import_jobs
                       WHERE status IN ('queued', 'running') AND (lease_until IS NULL OR lease_until < now())
                       ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
           RETURNING id, account_id, format, fetch_titles, content, processed`,
    values: [leaseMs / 1000],
  });
  if (!job) return null;
  return {
    id: job.id,
    accountId: job.account_id,
    format: job.format as ImportFormat,
    fetchTitles: job.fetch_titles,
    content: job.content ?? Buffer.alloc(0), // node-postgres reads bytea as a Buffer: no copy of the file
    processed: job.processed,
  };
}

export interface RunOptions {
  /** Stop after this many batches (tests interrupt a job with it); the job stays claimed. */
  maxBatches?: number;
  shouldStop?: () => boolean;
  onProgress?: (p: { processed: number; total: number }) => void;
}

/** Processes a claimed job to its end (or until told to stop). Returns true when the job finished. */
export async function runImportJob(
  deps: ImportWorkerDeps,
  job: ClaimedJob,
  opts: RunOptions = {},
): Promise<boolean> {
  let rows: ReturnType<typeof readImportFile>["rows"];
  try {
    rows = readImportFile(job.content, job.format).rows;
  } catch (err) {
    if (!(err instanceof ImportFileError)) throw err;
    await finishJob(deps.prisma, job.id, "failed", err.message);
    return true;
  }
  const limit = pLimit(TITLE_CONCURRENCY);
  const titleFor = job.fetchTitles
    ? (url: string) => limit(() => deps.titles.titleFor(url))
    : async (url: string) => fallbackTitle(url);
  let processed = job.processed;
  let batches = 0;
  // A batch renews the lease when it commits; a slow one (titles fetched for 1,000 rows) could outlast
  // it, so the lease is also renewed while the worker is alive. Only a dead worker's lease expires.
  const heartbeat = setInterval(
    () => {
      deps.prisma.$executeRaw`
      UPDATE import_jobs SET lease_until = now() + make_interval(secs => ${deps.leaseMs / 1000}::float8)
      WHERE id = ${job.id}::uuid AND status = 'running'`.catch(() => {});
    },
    Math.max(50, deps.leaseMs / 3),
  );
  try {
    return await runBatches();
  } finally {
    clearInterval(heartbeat);
  }

  async function runBatches(): Promise<boolean> {
    const batchDeps = {
      prisma: deps.prisma,
      retiredCodeGraceMs: deps.retiredCodeGraceMs,
      titleFor,
      leaseMs: deps.leaseMs,
    };
    // The next batch is prepared (checked, titles, hashes: the worker's own CPU) while the current one
    // commits (Postgres' work), and the redirect records of a committed batch go to Redis while the
    // next one runs; the job ends only after its last records are written.
    const prepare = (from: number) => {
      const batch = new Promise<void>((resolve) => setImmediate(resolve)).then(() =>
        prepareBatch(batchDeps, rows.slice(from, from + deps.batchSize)),
      );
      // Its failure is the loop's to throw when it gets there, not an unhandled rejection before then.
      batch.catch(() => {});
      return batch;
    };
    let next = processed < rows.length ? prepare(processed) : null;
    let records = Promise.resolve();
    try {
      while (next) {
        if (opts.shouldStop?.() || (opts.maxBatches !== undefined && batches >= opts.maxBatches))
          return false;
        const batch = await next;
        next = processed + batch.size < rows.length ? prepare(processed + batch.size) : null;
        let result: BatchResult;
        try {
          result = await commitPreparedBatch(batchDeps, job, processed, batch);
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
        opts.onProgress?.({ processed, total: rows.length });
      }
    } finally {
      await records;
      // A batch prepared but not committed (stopped, or moved) is dropped once its preparation ends.
      await next?.catch(() => {});
    }
    await finishJob(deps.prisma, job.id, "completed", null);
    return true;
  }
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

/** Hands a job back without waiting for its lease to expire (clean shutdown). */
async function releaseJob(prisma: PrismaClient, id: string) {
  await prisma.$executeRaw`UPDATE import_jobs SET lease_until = NULL WHERE id = ${id}::uuid AND status = 'running'`;
}

export class ImportWorker {
  private readonly loop: PollLoop;

  constructor(private readonly deps: ImportWorkerDeps) {
    this.loop = new PollLoop({
      pollMs: deps.pollMs,
      round: () => this.runOne(),
      onError: (err) =>
        deps.logger.error({ err: String(err) }, "import job failed; it resumes when its lease expires"),
    });
  }

  start(): void {
    this.loop.start();
  }

  /** A job was queued: look now rather than at the next poll. */
  wake(): void {
    this.loop.wake();
  }

  /** Claims and runs one job; true when there was one (another may be waiting). */
  private async runOne(): Promise<boolean> {
    const job = await claimImportJob(this.deps.prisma, this.deps.leaseMs);
    if (!job) return false;
    try {
      const finished = await runImportJob(this.deps, job, { shouldStop: () => this.loop.stopped });
      if (!finished && this.loop.stopped) await releaseJob(this.deps.prisma, job.id);
      this.deps.logger.info({ job: job.id, finished }, "import job run ended");
    } catch (err) {
      this.deps.logger.error({ err: String(err) }, "import job failed; it resumes when its lease expires");
    }
    return true;
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }
}
