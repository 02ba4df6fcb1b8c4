// Link creates in batches (issue 15, decision 0044): the creates that reach one management process
// together go to Postgres as one call of `kurz_create_links`, one statement and one commit, instead of
// a statement and a commit (and its WAL flush) each. That was about 40% of Postgres's CPU per create.
// Each create is still done or refused on its own (the function runs each in a block of its own). A
// whole call that fails commits nothing, so it may be sent again: as it was when Postgres chose it as a
// deadlock's victim (two batches that wait on each other's codes), one create at a time when the error
// came from what one create carried (so one account's create cannot fail another's), and not at all
// when the database is unavailable (each create fails with that, as it would alone).
//
// A batch starts as soon as the event loop has taken in what arrived with the first create (the
// creates of one poll phase), and while one runs the next ones gather: one account's creates under
// load go in batches of several, a lone create waits for nothing.
import { isDatabaseUnavailable, type PrismaClient, poolOf, sqlStateOf } from "@kurz/db";

/** One create as kurz_create_links takes it (timestamps as ISO strings; `expires_at` null: the default). */
export interface PlannedCreate {
  id: string;
  account: string;
  code: string;
  url: string;
  title: string;
  password_hash: string | null;
  expires_at: string | null;
  created: string;
  /** A generated code (a retired one is drawn again) rather than the caller's alias. */
  generated: boolean;
  /** Codes retired by other accounts after this are reserved to them. */
  cutoff: string;
  topic: string;
  /** The link.created event; its link.expires_at is set from the row. */
  event: unknown;
  overlay_id: number | null;
  domain_id: number | null;
  frameable: boolean | null;
  frame_checked_at: string | null;
}

/**
 * A create the database refused, with the SQLSTATE (`code`) and, for a unique violation, the
 * constraint: the members a pg error has, so sqlStateOf and isUniqueViolation read it as one.
 */
export class CreateRefused extends Error {
  override name = "CreateRefused";
  constructor(
    readonly code: string,
    readonly constraint?: string,
  ) {
    super(`create refused (${code}${constraint ? ` ${constraint}` : ""})`);
  }
}

const CREATE_LINKS = "SELECT item, expires, failure FROM kurz_create_links($1::jsonb)";
/** Creates per call at most; a JSON parameter of this many is some tens of kilobytes. */
const MAX_BATCH = 100;
/** Calls running at once per process (docs/benchmarks.md, 2026-11-27 evening). */
const MAX_IN_FLIGHT = 2;
/** Attempts of a call Postgres broke off as a deadlock's victim (or a serialization failure). */
const ATTEMPTS = 3;
const RETRYABLE = new Set(["40P01", "40001"]);

interface Pending {
  item: PlannedCreate;
  resolve: (expiresAt: Date | null) => void;
  reject: (err: unknown) => void;
}

interface Outcome {
  item: number;
  expires: Date | null;
  failure: string | null;
}

export class LinkCreateBatcher {
  private queue: Pending[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(private readonly pool: ReturnType<typeof poolOf>) {}

  /** Creates one link; resolves to its expiry as stored, or rejects with CreateRefused (or the call's error). */
  create(item: PlannedCreate): Promise<Date | null> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= MAX_IN_FLIGHT || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      while (this.inFlight < MAX_IN_FLIGHT && this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH);
        this.inFlight++;
        void this.run(batch).finally(() => {
          this.inFlight--;
          this.schedule();
        });
      }
    });
  }

  private async run(batch: Pending[]): Promise<void> {
    const param = JSON.stringify(batch.map((p, i) => ({ ...p.item, i })));
    for (let attempt = 1; ; attempt++) {
      let rows: Outcome[];
      try {
        ({ rows } = await this.pool.query<Outcome>({
          name: "kurz_create_links",
          text: CREATE_LINKS,
          values: [param],
        }));
      } catch (err) {
        if (attempt < ATTEMPTS && RETRYABLE.has(sqlStateOf(err) ?? "")) continue;
        if (batch.length > 1 && !isDatabaseUnavailable(err)) {
          for (const p of batch) await this.run([p]);
          return;
        }
        for (const p of batch) p.reject(err);
        return;
      }
      const settled = new Set<number>();
      for (const row of rows) {
        const pending = batch[row.item];
        if (!pending || settled.has(row.item)) continue;
        settled.add(row.item);
        if (row.failure === null) pending.resolve(row.expires);
        else pending.reject(refusal(row.failure));
      }
      batch.forEach((p, i) => {
        if (!settled.has(i)) p.reject(new Error("kurz_create_links returned no outcome for a create"));
      });
      return;
    }
  }
}

/** "23505:links_short_code_key" or a bare SQLSTATE, as kurz_create_links reports a refusal. */
function refusal(failure: string): CreateRefused {
  const colon = failure.indexOf(":");
  return colon === -1
    ? new CreateRefused(failure)
    : new CreateRefused(failure.slice(0, colon), failure.slice(colon + 1));
}

const batchers = new WeakMap<PrismaClient, LinkCreateBatcher>();

/** The batcher of the pool under `prisma` (one per client, so one per process in a service). */
export function createBatcherOf(prisma: PrismaClient): LinkCreateBatcher {
  let batcher = batchers.get(prisma);
  if (!batcher) {
    batcher = new LinkCreateBatcher(poolOf(prisma));
    batchers.set(prisma, batcher);
  }
  return batcher;
}
