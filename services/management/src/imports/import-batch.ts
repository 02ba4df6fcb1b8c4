// One batch of an import in one transaction (docs/import-export.md): the batch's new links, their
// `link.created` outbox events, the account's stored link count (decision 0012, still the last row
// lock taken), the rows it refused and the job's counters commit together or not at all. The job's
// `processed` moves by exactly the batch, so a job interrupted anywhere resumes after the last batch
// that committed and never creates a row twice.
//
// Idempotency per row: a row whose alias already names a link of this account to the same URL, or a
// row without alias whose URL this account already shortened, is skipped; re-running a file (or
// resuming one) therefore creates nothing twice.
import { randomUUID } from "node:crypto";
import { TOPICS } from "@kurz/contracts";
import type { Link, Prisma, PrismaClient } from "@kurz/db";
import { linkEvent } from "../outbox.ts";
import { hashPassword } from "../passwords.ts";
import { randomShortCode } from "../short-codes.ts";
import type { RawImportRow } from "./import-file.ts";
import { checkImportRow, type ValidImportRow } from "./import-rows.ts";

type Tx = Prisma.TransactionClient;

export const IMPORT_ALIAS_TAKEN = "Alias already taken";
export const importLimitReached = (limit: number) => `Link limit reached (${limit} links)`;

export interface RowError {
  row: number;
  alias: string | null;
  url: string | null;
  error: string;
}

export interface BatchResult {
  created: Link[];
  skipped: number;
  errors: RowError[];
}

export interface BatchDeps {
  prisma: PrismaClient;
  retiredCodeGraceMs: number;
  /** The title of a row without one: a fetch when the job asked for it, otherwise the URL's host. */
  titleFor: (url: string) => Promise<string>;
  leaseMs: number;
}

export class ImportJobMoved extends Error {}
/** The account's room was taken by concurrent creates between the read and the count's update. */
class RoomGone extends Error {}

const MAX_ATTEMPTS = 3;

/** Processes `rows` (the job's rows from `start`) and commits them; throws ImportJobMoved when another worker did. */
export async function importBatch(
  deps: BatchDeps,
  job: { id: string; accountId: string },
  start: number,
  rows: readonly RawImportRow[],
): Promise<BatchResult> {
  const errors: RowError[] = [];
  const fail = (row: RawImportRow | ValidImportRow, error: string) =>
    errors.push({ row: row.row, alias: row.alias ?? null, url: row.url ?? null, error });

  const valid: ValidImportRow[] = [];
  for (const raw of rows) {
    const checked = checkImportRow(raw);
    if (checked.ok) valid.push(checked.value);
    else fail(checked.row, checked.error);
  }
  // Slow parts (password hashes, title fetches) happen before the transaction opens.
  const prepared = await Promise.all(
    valid.map(async (row) => ({
      ...row,
      title: row.title ?? (await deps.titleFor(row.url)),
      passwordHash: row.password !== undefined ? await hashPassword(row.password) : null,
    })),
  );

  for (let attempt = 1; ; attempt++) {
    const attemptErrors = [...errors];
    try {
      const result = await deps.prisma.$transaction(
        (tx) => commitBatch(tx, deps, job, start, rows.length, prepared, attemptErrors),
        { timeout: 120_000, maxWait: 30_000 },
      );
      return result;
    } catch (err) {
      if (!(err instanceof RoomGone) || attempt >= MAX_ATTEMPTS) throw err;
    }
  }
}

type Prepared = ValidImportRow & { title: string; passwordHash: string | null };

async function commitBatch(
  tx: Tx,
  deps: BatchDeps,
  job: { id: string; accountId: string },
  start: number,
  size: number,
  rows: Prepared[],
  errors: RowError[],
): Promise<BatchResult> {
  const fail = (row: Prepared, error: string) =>
    errors.push({ row: row.row, alias: row.alias ?? null, url: row.url, error });
  // The job row is the batch's token: only the worker that finds `processed` where it left it commits.
  const [current] = await tx.$queryRaw<{ processed: number; status: string }[]>`
    SELECT processed, status FROM import_jobs WHERE id = ${job.id}::uuid FOR UPDATE`;
  if (!current || current.processed !== start || current.status !== "running") throw new ImportJobMoved();

  const accountId = job.accountId;
  let skipped = 0;
  const aliases = rows.flatMap((r) => (r.alias === undefined ? [] : [r.alias]));
  const cutoff = new Date(Date.now() - deps.retiredCodeGraceMs);
  // The planner takes the trigram GIN index of short_code (links_short_code_trgm_idx) for
  // `short_code = ANY(...)`, where each alias's trigrams match a large part of the table: 10 s for 500
  // aliases among 16,000 links, against 3.5 ms through the unique btree. GIN indexes are only read by
  // bitmap scans, so turning those off for these two lookups leaves the btree.
  await tx.$executeRaw`SET LOCAL enable_bitmapscan = off`;
  const existing =
    aliases.length === 0
      ? []
      : await tx.$queryRaw<{ short_code: string; account_id: string; original_url: string }[]>`
          SELECT short_code, account_id, original_url FROM links WHERE short_code = ANY(${aliases}::text[])`;
  const reserved =
    aliases.length === 0
      ? []
      : await tx.$queryRaw<{ short_code: string }[]>`
          SELECT short_code FROM retired_codes WHERE short_code = ANY(${aliases}::text[])
            AND account_id <> ${accountId}::uuid AND retired_at > ${cutoff}::timestamptz`;
  await tx.$executeRaw`SET LOCAL enable_bitmapscan = on`;
  const sameUrls = await urlsAlreadyShortened(tx, accountId, rows);
  const byCode = new Map(existing.map((l) => [l.short_code, l]));
  const reservedCodes = new Set(reserved.map((r) => r.short_code));

  const toCreate: Prepared[] = [];
  const seenAliases = new Map<string, string>();
  const seenUrls = new Set<string>();
  for (const row of rows) {
    if (row.alias !== undefined) {
      const link = byCode.get(row.alias);
      const earlier = seenAliases.get(row.alias);
      if ((link && link.account_id === accountId && link.original_url === row.url) || earlier === row.url) {
        skipped++;
      } else if (link || earlier !== undefined || reservedCodes.has(row.alias)) {
        fail(row, IMPORT_ALIAS_TAKEN);
      } else {
        seenAliases.set(row.alias, row.url);
        toCreate.push(row);
      }
    } else if (sameUrls.has(row.url) || seenUrls.has(row.url)) {
      skipped++;
    } else {
      seenUrls.add(row.url);
      toCreate.push(row);
    }
  }

  const [account] = await tx.$queryRaw<{ room: number; link_limit: number }[]>`
    SELECT link_limit - link_count AS room, link_limit FROM accounts WHERE id = ${accountId}::uuid`;
  if (!account) throw new Error("the import's account no longer exists");
  const room = Math.max(0, account.room);
  for (const row of toCreate.slice(room)) fail(row, importLimitReached(account.link_limit));
  const created = await insertLinks(tx, accountId, toCreate.slice(0, room), (row) =>
    fail(row, IMPORT_ALIAS_TAKEN),
  );

  if (created.length > 0) {
    const events = created.map((link) => linkEvent("link.created", link));
    await tx.$executeRaw`
      INSERT INTO outbox_events (topic, key, payload)
      SELECT ${TOPICS.links}, k, p FROM unnest(${events.map((e) => e.link_id)}::text[],
        ${events.map((e) => JSON.stringify(e))}::jsonb[]) AS e(k, p)`;
    // Last row lock of the transaction, as every create's (decision 0012).
    const counted = await tx.$executeRaw`
      UPDATE accounts SET link_count = link_count + ${created.length}::int
      WHERE id = ${accountId}::uuid AND link_count + ${created.length}::int <= link_limit`;
    if (counted !== 1) throw new RoomGone();
  }

  errors.sort((a, b) => a.row - b.row);
  if (errors.length > 0) {
    await tx.$executeRaw`
      INSERT INTO import_row_errors (job_id, row, alias, url, error)
      SELECT ${job.id}::uuid, r, a, u, e FROM unnest(${errors.map((e) => e.row)}::int[],
        ${errors.map((e) => e.alias)}::text[], ${errors.map((e) => e.url?.slice(0, 2048) ?? null)}::text[],
        ${errors.map((e) => e.error)}::text[]) AS x(r, a, u, e)
      ON CONFLICT DO NOTHING`;
  }
  await tx.$executeRaw`
    UPDATE import_jobs SET processed = processed + ${size}::int, created = created + ${created.length}::int,
      skipped = skipped + ${skipped}::int, failed = failed + ${errors.length}::int, updated_at = now(),
      lease_until = now() + make_interval(secs => ${deps.leaseMs / 1000}::float8)
    WHERE id = ${job.id}::uuid`;
  return { created, skipped, errors };
}

/** URLs of alias-less rows that this account already has a link to. */
async function urlsAlreadyShortened(tx: Tx, accountId: string, rows: Prepared[]): Promise<Set<string>> {
  const urls = [...new Set(rows.flatMap((r) => (r.alias === undefined ? [r.url] : [])))];
  if (urls.length === 0) return new Set();
  // A join, not `= ANY(array)`: ANY compares each of the account's links with every URL in turn,
  // which made a 100k-row import quadratic.
  const found = await tx.$queryRaw<{ original_url: string }[]>`
    SELECT DISTINCT l.original_url FROM links l JOIN unnest(${urls}::text[]) AS u(url) ON l.original_url = u.url
    WHERE l.account_id = ${accountId}::uuid`;
  return new Set(found.map((r) => r.original_url));
}

/**
 * One multi-row INSERT per round. A generated code that is in use or retired is drawn again (bounded);
 * an alias taken since the check above (a concurrent create) is reported through `taken`.
 */
async function insertLinks(
  tx: Tx,
  accountId: string,
  rows: Prepared[],
  taken: (row: Prepared) => void,
): Promise<Link[]> {
  const now = new Date();
  const created: Link[] = [];
  let pending = rows.map((row) => ({ row, id: randomUUID(), code: row.alias ?? randomShortCode() }));
  for (let round = 0; pending.length > 0 && round < 5; round++) {
    const inserted = await tx.$queryRaw<{ id: string; expires_at: Date | null }[]>`
      INSERT INTO links (id, account_id, short_code, original_url, title, password_hash, is_active,
                         analytics_public, expires_at, created_at, updated_at)
      SELECT r.id, a.id, r.code, r.url, r.title, r.pw, true, false,
             COALESCE(r.exp, now() + make_interval(hours => a.default_expiry_hours)),
             ${now}::timestamptz, ${now}::timestamptz
      FROM unnest(${pending.map((p) => p.id)}::uuid[], ${pending.map((p) => p.code)}::text[],
                  ${pending.map((p) => p.row.url)}::text[], ${pending.map((p) => p.row.title)}::text[],
                  ${pending.map((p) => p.row.passwordHash)}::text[],
                  ${pending.map((p) => p.row.expiresAt?.toISOString() ?? null)}::timestamptz[],
                  ${pending.map((p) => p.row.alias === undefined)}::boolean[])
             AS r(id, code, url, title, pw, exp, generated)
      JOIN accounts a ON a.id = ${accountId}::uuid
      WHERE NOT (r.generated AND EXISTS (SELECT 1 FROM retired_codes rc WHERE rc.short_code = r.code))
      ON CONFLICT (short_code) DO NOTHING
      RETURNING id, expires_at`;
    const done = new Map(inserted.map((r) => [r.id, r.expires_at]));
    const retry: typeof pending = [];
    for (const p of pending) {
      if (done.has(p.id)) {
        created.push({
          id: p.id,
          accountId,
          shortCode: p.code,
          originalUrl: p.row.url,
          title: p.row.title,
          passwordHash: p.row.passwordHash,
          isActive: true,
          expiresAt: done.get(p.id) ?? null,
          clicksCount: 0n,
          analyticsPublic: false,
          analyticsSharedFields: null,
          overlayId: null,
          domainId: null,
          frameable: null,
          frameCheckedAt: null,
          createdAt: now,
          updatedAt: now,
        });
      } else if (p.row.alias !== undefined) {
        taken(p.row);
      } else {
        retry.push({ ...p, code: randomShortCode() });
      }
    }
    pending = retry;
  }
  if (pending.length > 0) throw new Error("could not draw free short codes for an import batch");
  return created;
}
