// Links looked up by short code, for the alias checks of single, bulk and import creation. Always
// through the unique btree (links_short_code_key), whatever the planner thinks of the trigram GIN
// index on the same column (links_short_code_trgm_idx, which serves the link list's search).
//
// pg_trgm's GIN operator class also answers `=`. New links wait in a GIN index's pending list until it
// outgrows gin_pending_list_limit (4 MB by default: ~16,000 links here) or a vacuum, and the planner
// costs that index far below the btree while every GIN lookup reads the whole pending list: 500 codes
// among 16,000 fresh links took 3-5 s through it against 0.5 ms through the btree (EXPLAIN ANALYZE in
// docs/benchmarks/2026-11.md, "import and export"). `IN (...)`, `= ANY($1)` and an equality join on
// unnest all got the GIN index in some plan (custom or generic, analyzed or not). A one-value range
// (`>= code AND <= code`) is something only a btree can answer, so the plan uses the unique index in
// every case; for text in a deterministic collation it matches exactly the rows `=` does.
import { Prisma, type PrismaClient } from "@kurz/db";

type Db = Prisma.TransactionClient | PrismaClient;

export interface LinkByCode {
  short_code: string;
  account_id: string;
  original_url: string;
}

/**
 * `unnest(codes) AS c(code) JOIN links l` on the short code, in the form above: for a query that needs
 * the lookup among other parts (the import's one lookup per batch).
 */
export function joinLinksByCode(codes: readonly string[]): Prisma.Sql {
  return Prisma.sql`unnest(${[...new Set(codes)]}::text[]) AS c(code)
    JOIN links l ON l.short_code >= c.code AND l.short_code <= c.code`;
}

/** The links whose short code is one of `codes` (at most one each). */
export async function linksByCode(db: Db, codes: readonly string[]): Promise<LinkByCode[]> {
  if (codes.length === 0) return [];
  return db.$queryRaw<LinkByCode[]>`
    SELECT l.short_code, l.account_id::text AS account_id, l.original_url FROM ${joinLinksByCode(codes)}`;
}
