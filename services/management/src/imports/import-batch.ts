// One batch of an import in one transaction (docs/import-export.md): the batch's new links, their
// `link.created` outbox events, the account's stored link count (decision 0037, still the last row
// lock taken), the rows it refused and the job's counters commit together or not at all. The job's
// `processed` moves by exactly the batch, so a job interrupted anywhere resumes after the last batch
// that committed and never creates a row twice.
//
// Idempotency per row: a row whose alias already names a link of this account to the same URL, or a
// row without alias whose URL this account already shortened, is skipped; re-running a file (or
// resuming one) therefore creates nothing twice.
//
// Every row ends in exactly one count: created, skipped, needs_attention (a link created inactive for
// its owner to finish: a password the source did not export, listed in import_row_attention with
// its link) or failed (no link; its reason in import_row_errors). A batch moves `processed` by its
// size and those four by its rows, in the same statement, so they always add up.
import { randomUUID } from "node:crypto";
import { TOPICS } from "@kurz/contracts";
import { type Link, Prisma, type PrismaClient, sqlStateOf } from "@kurz/db";
import { linkEvent } from "../db/outbox.ts";
import { joinLinksByCode } from "../links/links-by-code.ts";
import { randomShortCode } from "../links/short-codes.ts";
import { NO_SMART_COLUMNS } from "../links/smart-fields.ts";
import { fallbackTitle } from "../titles/title-fetcher.ts";
import type { CheckedRow, ValidImportRow } from "./import-rows.ts";

type Tx = Prisma.TransactionClient;

export const IMPORT_ALIAS_TAKEN =
  "Alias already taken: another link has this code (or another account deleted it lately). To import it, change the alias in the file, or leave it empty for a generated code";
export const importLimitReached = (limit: number) =>
  `Link limit reached (${limit} links). To import it, delete links you no longer need or ask for a higher limit, then import the file again: the rows already imported are skipped`;

export interface RowError {
  row: number;
  alias: string | null;
  url: string | null;
  error: string;
}

export interface BatchResult {
  /** Every link the batch made, the inactive ones that need attention included. */
  created: Link[];
  skipped: number;
  /** How many of `created` were made inactive for their owner to finish. */
  needsAttention: number;
  errors: RowError[];
}

export interface BatchDeps {
  prisma: PrismaClient;
  retiredCodeGraceMs: number;
  leaseMs: number;
}

/** The slow per-row work of a batch, done only for the rows that the batch will write. */
export interface RowWork {
  /** Whether the job fetches titles (then a row without one costs a fetch). */
  fetchTitles: boolean;
  /** The titles of these URLs, fetched while the job's budget lasts; the rest get the host name. */
  titlesFor: (urls: readonly string[]) => Promise<string[]>;
  hashPassword: (password: string) => Promise<string>;
}

/** The job as a batch needs it: whose links, on which host, and what it does with reserved codes. */
export interface BatchJob {
  id: string;
  accountId: string;
  /** The branded domain its links live on; null: the public host. */
  domainId: number | null;
  renameReserved: string | null;
}

export class ImportJobMoved extends Error {}
/** The account's room was taken by concurrent creates between the read and the count's update. */
class RoomGone extends Error {}

const MAX_ATTEMPTS = 3;

/** A batch checked and made ready outside any transaction: its refused rows and the rows to write. */
export interface PreparedBatch {
  size: number;
  errors: RowError[];
  /** Rows found already imported before the transaction (those rows are not in `rows`). */
  skipped: number;
  /** The rows that may be written, with their titles and password hashes. */
  rows: Prepared[];
  /** Password hashes made for this batch. */
  hashed: number;
}

/**
 * Sorts a batch's checked rows (import-rows.ts) and, outside any transaction, does its slow parts (password hashes, title
 * fetches) for the rows that will be written only. A batch with such work first reads what its
 * transaction will decide (the account's room, the aliases and URLs it has) once `ready` resolves, that
 * is once the batch before it committed: a row refused for the link limit, an alias taken or a link
 * already imported costs no hash and no fetch. A batch without slow work is prepared at once (the
 * worker prepares it while the one before commits) and decided in its transaction alone.
 */
export async function prepareBatch(
  deps: Pick<BatchDeps, "prisma" | "retiredCodeGraceMs">,
  work: RowWork,
  job: { accountId: string },
  rows: readonly CheckedRow[],
  ready: Promise<unknown> = Promise.resolve(),
): Promise<PreparedBatch> {
  const errors: RowError[] = [];
  const valid: ValidImportRow[] = [];
  for (const checked of rows) {
    if (checked.ok) valid.push(checked.value);
    else {
      const raw = checked.row;
      errors.push({ row: raw.row, alias: raw.alias ?? null, url: raw.url ?? null, error: checked.error });
    }
  }
  const slow = (row: ValidImportRow) =>
    row.password !== undefined || (work.fetchTitles && row.title === undefined);
  if (!valid.some(slow)) {
    const prepared = valid.map((row) => ({
      ...row,
      title: row.title ?? fallbackTitle(row.url),
      passwordHash: null,
    }));
    return { size: rows.length, errors, skipped: 0, rows: prepared, hashed: 0 };
  }

  // The same reads and the same decision as the transaction's, in one query without its lock; the
  // transaction decides again over the rows kept here, so a change in between can only refuse or skip
  // more. Read first without waiting for the batch before: a batch that writes nothing on that reading
  // (every row refused or already imported, as in a file for an account at its limit) writes nothing
  // after it either, since the batch before only adds links, and with no room it added none. Such a
  // batch is ready while the one before commits; the others read again once it has.
  const early = await lookUp(deps.prisma, deps, job.accountId, valid, { withRoom: true });
  if (!early.account) throw new ImportJobMoved(); // the account was deleted: its job with it
  const nothing = decide(valid, early, early.account.room, early.account.linkLimit);
  if (nothing.toCreate.length === 0) {
    errors.push(...nothing.errors);
    return { size: rows.length, errors, skipped: nothing.skipped, rows: [], hashed: 0 };
  }
  await ready;
  const found = await lookUp(deps.prisma, deps, job.accountId, valid, { withRoom: true });
  if (!found.account) throw new ImportJobMoved(); // the account was deleted: its job with it
  const decided = decide(valid, found, found.account.room, found.account.linkLimit);
  errors.push(...decided.errors);

  const titled = decided.toCreate.filter((row) => row.title === undefined);
  const titles = work.fetchTitles
    ? await work.titlesFor(titled.map((row) => row.url))
    : titled.map((row) => fallbackTitle(row.url));
  const titleOf = new Map(titled.map((row, i) => [row, titles[i] as string]));
  let hashed = 0;
  const prepared = await Promise.all(
    decided.toCreate.map(async (row) => {
      let passwordHash: string | null = null;
      if (row.password !== undefined) {
        passwordHash = await work.hashPassword(row.password);
        hashed++;
      }
      return { ...row, title: row.title ?? (titleOf.get(row) as string), passwordHash };
    }),
  );
  return { size: rows.length, errors, skipped: decided.skipped, rows: prepared, hashed };
}

/** Commits a prepared batch (the job's rows from `start`); throws ImportJobMoved when another worker did. */
export async function commitPreparedBatch(
  deps: BatchDeps,
  job: BatchJob,
  start: number,
  batch: PreparedBatch,
): Promise<BatchResult> {
  if (batch.rows.length === 0) return commitRefusals(deps, job, start, batch);
  for (let attempt = 1; ; attempt++) {
    const attemptErrors = [...batch.errors];
    try {
      return await deps.prisma.$transaction((tx) => commitBatch(tx, deps, job, start, batch, attemptErrors), {
        timeout: 120_000,
        maxWait: 30_000,
      });
    } catch (err) {
      if (!(err instanceof RoomGone) || attempt >= MAX_ATTEMPTS) throw err;
    }
  }
}

/**
 * A batch with nothing to write (every row refused or already imported: an account at its limit) in
 * one statement: the job's counters move only where the job is still this worker's at `start`, and its
 * refused rows are written only then.
 */
async function commitRefusals(
  deps: BatchDeps,
  job: { id: string },
  start: number,
  batch: PreparedBatch,
): Promise<BatchResult> {
  const errors = [...batch.errors].sort((a, b) => a.row - b.row);
  const [moved] = await deps.prisma.$queryRaw<{ n: number }[]>`
    WITH job AS (
      UPDATE import_jobs SET processed = processed + ${batch.size}::int, skipped = skipped + ${batch.skipped}::int,
        failed = failed + ${errors.length}::int, updated_at = now(),
        lease_until = now() + make_interval(secs => ${deps.leaseMs / 1000}::float8)
      WHERE id = ${job.id}::uuid AND processed = ${start}::int AND status = 'running'
      RETURNING id),
    refused AS (
      INSERT INTO import_row_errors (job_id, row, alias, url, error)
      SELECT job.id, r, a, u, e FROM job CROSS JOIN unnest(${errors.map((e) => e.row)}::int[],
        ${errors.map((e) => e.alias)}::text[], ${errors.map((e) => e.url?.slice(0, 2048) ?? null)}::text[],
        ${errors.map((e) => e.error)}::text[]) AS x(r, a, u, e)
      ON CONFLICT DO NOTHING)
    SELECT count(*)::int AS n FROM job`;
  if (moved?.n !== 1) throw new ImportJobMoved();
  return { created: [], skipped: batch.skipped, needsAttention: 0, errors };
}

type Found = Awaited<ReturnType<typeof lookUp>>;

/**
 * Which rows are written, skipped (already imported) or refused (alias taken, link limit), in file
 * order: the rows beyond the account's room are refused.
 */
function decide<R extends ValidImportRow>(rows: readonly R[], found: Found, room: number, linkLimit: number) {
  const { byCode, reservedCodes, sameUrls } = found;
  const errors: RowError[] = [];
  const fail = (row: R, error: string) =>
    errors.push({ row: row.row, alias: row.alias ?? null, url: row.url, error });
  let skipped = 0;
  const candidates: R[] = [];
  const seenAliases = new Map<string, string>();
  const seenUrls = new Set<string>();
  for (const row of rows) {
    if (row.alias !== undefined) {
      const link = byCode.get(row.alias);
      const earlier = seenAliases.get(row.alias);
      if ((link?.own && link.url === row.url) || earlier === row.url) {
        skipped++;
      } else if (link || earlier !== undefined || reservedCodes.has(row.alias)) {
        fail(row, IMPORT_ALIAS_TAKEN);
      } else {
        seenAliases.set(row.alias, row.url);
        candidates.push(row);
      }
    } else if (sameUrls.has(row.url) || seenUrls.has(row.url)) {
      skipped++;
    } else {
      seenUrls.add(row.url);
      candidates.push(row);
    }
  }
  const fits = Math.max(0, room);
  for (const row of candidates.slice(fits)) fail(row, importLimitReached(linkLimit));
  return { toCreate: candidates.slice(0, fits), skipped, errors };
}

type Prepared = ValidImportRow & { title: string; passwordHash: string | null };

// Five statements a batch, each for the whole batch (no statement per row): the job's token and the
// account's room, every lookup, the links with their outbox events, the count, the refused rows with the
// job's counters.
async function commitBatch(
  tx: Tx,
  deps: BatchDeps,
  job: BatchJob,
  start: number,
  batch: PreparedBatch,
  errors: RowError[],
): Promise<BatchResult> {
  const fail = (row: Prepared, error: string) =>
    errors.push({ row: row.row, alias: row.alias ?? null, url: row.url, error });
  const accountId = job.accountId;
  // The job row is the batch's token: only the worker that finds `processed` where it left it commits.
  // The account is read, not locked: its count's update below is the check that holds (decision 0037).
  const [current] = await tx.$queryRaw<
    {
      processed: number;
      status: string;
      room: number;
      link_limit: number;
      default_expiry_hours: number | null;
    }[]
  >`
    SELECT j.processed, j.status, a.default_expiry_hours, a.link_limit,
      a.link_limit - (SELECT COALESCE(sum(used), 0)::int FROM link_quota WHERE account_id = a.id) AS room
    FROM import_jobs j JOIN accounts a ON a.id = j.account_id
    WHERE j.id = ${job.id}::uuid FOR UPDATE OF j`;
  if (!current || current.processed !== start || current.status !== "running") throw new ImportJobMoved();

  const found = batch.rows.length > 0 ? await lookUp(tx, deps, accountId, batch.rows) : NOTHING_FOUND;
  const decided = decide(batch.rows, found, current.room, current.link_limit);
  errors.push(...decided.errors);
  const skipped = batch.skipped + decided.skipped;
  const toCreate = decided.toCreate;
  const inserted = await insertLinks(tx, job, current.default_expiry_hours, toCreate, (row) =>
    fail(row, IMPORT_ALIAS_TAKEN),
  );
  const created = inserted.map((i) => i.link);
  const attention = inserted.filter((i) => i.row.attention !== null);
  // The rows created under rename_reserved's prefix, for the job's report.
  const renamed = inserted.filter((i) => i.row.renamedFrom !== undefined).map((i) => i.row);

  if (created.length > 0) {
    // The count's row lock comes last, as every create's (decision 0037): KZ403 when the room
    // read above has gone to concurrent creates.
    try {
      await tx.$executeRaw`SELECT kurz_count_links(${accountId}::uuid, ${created.length}::int)`;
    } catch (err) {
      if (sqlStateOf(err) === "KZ403") throw new RoomGone();
      throw err;
    }
  }

  errors.sort((a, b) => a.row - b.row);
  await tx.$executeRaw`
    WITH refused AS (
      INSERT INTO import_row_errors (job_id, row, alias, url, error)
      SELECT ${job.id}::uuid, r, a, u, e FROM unnest(${errors.map((e) => e.row)}::int[],
        ${errors.map((e) => e.alias)}::text[], ${errors.map((e) => e.url?.slice(0, 2048) ?? null)}::text[],
        ${errors.map((e) => e.error)}::text[]) AS x(r, a, u, e)
      ON CONFLICT DO NOTHING),
    renames AS (
      INSERT INTO import_row_renames (job_id, row, code, short_code)
      SELECT ${job.id}::uuid, r, c, s FROM unnest(${renamed.map((r) => r.row)}::int[],
        ${renamed.map((r) => r.renamedFrom!)}::text[], ${renamed.map((r) => r.alias!)}::text[]) AS x(r, c, s)
      ON CONFLICT DO NOTHING),
    attention AS (
      INSERT INTO import_row_attention (job_id, row, link_id, alias, url, reason)
      SELECT ${job.id}::uuid, r, l, a, u, e FROM unnest(${attention.map((i) => i.row.row)}::int[],
        ${attention.map((i) => i.link.id)}::uuid[], ${attention.map((i) => i.row.alias ?? null)}::text[],
        ${attention.map((i) => i.row.url)}::text[], ${attention.map((i) => i.row.attention)}::text[])
        AS x(r, l, a, u, e)
      ON CONFLICT DO NOTHING)
    UPDATE import_jobs SET processed = processed + ${batch.size}::int,
      created = created + ${created.length - attention.length}::int,
      needs_attention = needs_attention + ${attention.length}::int,
      skipped = skipped + ${skipped}::int, failed = failed + ${errors.length}::int,
      passwords_hashed = passwords_hashed + ${batch.hashed}::int, updated_at = now(),
      lease_until = now() + make_interval(secs => ${deps.leaseMs / 1000}::float8)
    WHERE id = ${job.id}::uuid`;
  return { created, skipped, needsAttention: attention.length, errors };
}

const NOTHING_FOUND: Found = {
  byCode: new Map(),
  reservedCodes: new Set(),
  sameUrls: new Set(),
  account: null,
};

/**
 * Every lookup of a batch in one query: the links that hold its aliases (through the unique btree,
 * links-by-code.ts), the aliases another account retired within the grace, and the URLs of its
 * alias-less rows that this account already shortened. The URLs are looked up one by one through
 * the btree on the account and the URL's hash (links_account_id_url_hash_idx), the URL itself compared on
 * the entries found: a join on the URL with `account_id = …` was planned as a hash join over every
 * link of the account, and `= ANY(array)` compared each of the account's links with every URL. The
 * lateral subquery names the index's expression, so the planner has nothing else to go on, and its
 * LIMIT 1 stops at the first of the account's links to the URL. EXPLAIN at 100,000 links:
 * docs/benchmarks/2026-11.md, "import and export".
 */
async function lookUp(
  tx: Tx | PrismaClient,
  deps: Pick<BatchDeps, "retiredCodeGraceMs">,
  accountId: string,
  rows: readonly ValidImportRow[],
  opts: { withRoom?: boolean } = {},
) {
  const aliases = rows.flatMap((r) => (r.alias === undefined ? [] : [r.alias]));
  const urls = [...new Set(rows.flatMap((r) => (r.alias === undefined ? [r.url] : [])))];
  const cutoff = new Date(Date.now() - deps.retiredCodeGraceMs);
  const found = await tx.$queryRaw<
    { kind: "code" | "reserved" | "url" | "room"; key: string; own: boolean; url: string }[]
  >`
    SELECT 'code' AS kind, l.short_code AS key, l.account_id = ${accountId}::uuid AS own, l.original_url AS url
    FROM ${joinLinksByCode(aliases)}
    UNION ALL
    SELECT 'reserved', rc.short_code, false, '' FROM retired_codes rc
    WHERE rc.short_code = ANY(${aliases}::text[]) AND rc.account_id <> ${accountId}::uuid
      AND rc.retired_at > ${cutoff}::timestamptz
    UNION ALL
    SELECT 'url', x.original_url, true, x.original_url
    FROM unnest(${urls}::text[]) AS u(url)
    CROSS JOIN LATERAL (SELECT l.original_url FROM links l
                        WHERE l.account_id = ${accountId}::uuid
                          AND hashtextextended(l.original_url, 0) = hashtextextended(u.url, 0)
                          AND l.original_url = u.url
                        LIMIT 1) AS x
    ${
      opts.withRoom
        ? Prisma.sql`UNION ALL
    SELECT 'room', (a.link_limit - (SELECT COALESCE(sum(used), 0)::int FROM link_quota WHERE account_id = a.id))::text,
      false, a.link_limit::text
    FROM accounts a WHERE a.id = ${accountId}::uuid`
        : Prisma.empty
    }`;
  const byCode = new Map<string, { own: boolean; url: string }>();
  const reservedCodes = new Set<string>();
  const sameUrls = new Set<string>();
  let account: { room: number; linkLimit: number } | null = null;
  for (const f of found) {
    if (f.kind === "code") byCode.set(f.key, { own: f.own, url: f.url });
    else if (f.kind === "reserved") reservedCodes.add(f.key);
    else if (f.kind === "room") account = { room: Number(f.key), linkLimit: Number(f.url) };
    else sameUrls.add(f.key);
  }
  return { byCode, reservedCodes, sameUrls, account };
}

/**
 * The links and their `link.created` outbox events in one statement per round: the events are built
 * here from the rows as they will be inserted (the expiry defaulting from the account's setting, as
 * the API's create does), and only those of rows the INSERT took are written. A generated code that is
 * in use or retired is drawn again (bounded rounds); an alias taken since the lookup (a concurrent
 * create) is reported through `taken`. A row that needs attention is inserted inactive: the redirect
 * answers it as any inactive link (404) until its owner sets a password and activates it.
 */
async function insertLinks(
  tx: Tx,
  job: Pick<BatchJob, "accountId" | "domainId">,
  defaultExpiryHours: number | null,
  rows: Prepared[],
  taken: (row: Prepared) => void,
): Promise<{ row: Prepared; link: Link }[]> {
  const now = new Date();
  const defaultExpiry =
    defaultExpiryHours === null ? null : new Date(now.getTime() + defaultExpiryHours * 3_600_000);
  const created: { row: Prepared; link: Link }[] = [];
  const { accountId, domainId } = job;
  const linkOf = (row: Prepared, code: string) => linkOfRow(row, job, code, now, defaultExpiry);
  let pending = rows.map((row) => linkOf(row, row.alias ?? randomShortCode()));
  for (let round = 0; pending.length > 0 && round < 5; round++) {
    // The batch travels as one JSON document (jsonb_to_recordset) rather than as one array per column:
    // node-postgres escapes every element of a text[] one by one and Postgres parses the escapes back,
    // which cost more than the INSERT's own work for the events' JSON (docs/benchmarks/2026-11.md).
    const batch = JSON.stringify(
      pending.map(({ row, link }, n) => ({
        n,
        id: link.id,
        code: link.shortCode,
        url: link.originalUrl,
        title: link.title,
        pw: link.passwordHash,
        active: link.isActive,
        exp: link.expiresAt?.toISOString() ?? null,
        generated: row.alias === undefined,
        event: linkEvent("link.created", link),
      })),
    );
    const inserted = await tx.$queryRaw<{ id: string; forward_query: boolean }[]>`
      WITH r AS (
        SELECT * FROM jsonb_to_recordset(${batch}::jsonb)
          AS r(n int, id uuid, code text, url text, title text, pw text, active boolean, exp timestamptz,
               generated boolean, event jsonb)),
      added AS (
        INSERT INTO links (id, account_id, short_code, original_url, title, password_hash, is_active,
                           analytics_public, expires_at, domain_id, created_at, updated_at, forward_query)
        SELECT r.id, ${accountId}::uuid, r.code, r.url, r.title, r.pw, r.active, false, r.exp, ${domainId}::int,
               ${now}::timestamptz, ${now}::timestamptz,
               (SELECT a.forward_query FROM accounts a WHERE a.id = ${accountId}::uuid)
        FROM r
        WHERE NOT (r.generated AND EXISTS (SELECT 1 FROM retired_codes rc WHERE rc.short_code = r.code))
        ON CONFLICT (short_code) DO NOTHING
        RETURNING id, forward_query),
      events AS (
        INSERT INTO outbox_events (topic, key, payload)
        SELECT ${TOPICS.links}, r.id::text, r.event FROM r JOIN added ON added.id = r.id ORDER BY r.n)
      SELECT id, forward_query FROM added`;
    // Imported links forward the visit's query as the workspace's default says (the row holds it).
    const done = new Map(inserted.map((r) => [r.id, r.forward_query]));
    const retry: typeof pending = [];
    for (const p of pending) {
      const forwardQuery = done.get(p.link.id);
      if (forwardQuery !== undefined) created.push({ ...p, link: { ...p.link, forwardQuery } });
      else if (p.row.alias !== undefined) taken(p.row);
      else retry.push(linkOf(p.row, randomShortCode()));
    }
    pending = retry;
  }
  if (pending.length > 0) throw new Error("could not draw free short codes for an import batch");
  return created;
}

/** The link a row becomes, every column given (as the INSERT above writes it). */
function linkOfRow(
  row: Prepared,
  job: Pick<BatchJob, "accountId" | "domainId">,
  code: string,
  now: Date,
  defaultExpiry: Date | null,
) {
  const link: Link = {
    id: randomUUID(),
    accountId: job.accountId,
    shortCode: code,
    originalUrl: row.url,
    title: row.title,
    passwordHash: row.passwordHash,
    isActive: row.attention === null,
    expiresAt: row.expiresAt ?? defaultExpiry,
    clicksCount: 0n,
    analyticsPublic: false,
    analyticsSharedFields: null,
    overlayId: null,
    domainId: job.domainId,
    frameable: null,
    frameCheckedAt: null,
    createdAt: now,
    updatedAt: now,
    version: 1n, // the column's default: a new row's first version
    ...NO_SMART_COLUMNS,
    brokenUrl: null,
    brokenSince: null,
  };
  return { row, link };
}
