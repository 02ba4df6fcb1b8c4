// Link creates in batches (decision 0044): the creates that reach one management process
// together go to Postgres as one call of `kurz_create_links`, one statement and one commit, instead of
// a statement and a commit (and its WAL flush) each; CallBatcher forms the batches and sends a failed
// call again. Each create is still done or refused on its own: the function runs each in a block of
// its own and reports its refusal.
import type { AuditRow } from "../audit/record-audit.ts";
import { batchedOnPool, type Pool } from "../db/call-batcher.ts";

/**
 * One create as kurz_create_links takes it (timestamps as ISO strings; `expires_at` and
 * `forward_query` null: the account's default).
 */
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
  /** The link.created audit event of the item's own caller (its resource id is the link's). */
  audit: AuditRow;
  // The smart members (docs/smart-links.md), as the link's columns hold them.
  rules: unknown;
  split: unknown;
  forward_query: boolean | null;
  max_clicks: number | null;
  expired_url: string | null;
  og_title: string | null;
  og_description: string | null;
  og_image_id: string | null;
  ios_url: string | null;
  android_url: string | null;
  /** Where visitors go while the link is broken (docs/health.md). */
  broken_url: string | null;
}

/** A create as stored: its expiry and query forwarding, which may come from the account's defaults. */
export interface Created {
  expires: Date | null;
  forwardQuery: boolean;
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

const CREATE_LINKS = "SELECT item, expires, failure, forward_query FROM kurz_create_links($1::jsonb)";

interface Outcome {
  item: number;
  expires: Date | null;
  failure: string | null;
  forward_query: boolean | null;
}

/** One call of kurz_create_links: each create's stored expiry and forwarding, or its refusal. */
async function createLinks(
  pool: Pool,
  items: readonly PlannedCreate[],
): Promise<(Created | CreateRefused)[]> {
  const { rows } = await pool.query<Outcome>({
    name: "kurz_create_links",
    text: CREATE_LINKS,
    values: [JSON.stringify(items.map((item, i) => ({ ...item, i })))],
  });
  const results: (Created | CreateRefused)[] = [];
  for (const row of rows) {
    results[row.item] =
      row.failure === null
        ? { expires: row.expires, forwardQuery: row.forward_query ?? true }
        : refusal(row.failure);
  }
  return results;
}

/** "23505:links_short_code_key" or a bare SQLSTATE, as kurz_create_links reports a refusal. */
function refusal(failure: string): CreateRefused {
  const colon = failure.indexOf(":");
  return colon === -1
    ? new CreateRefused(failure)
    : new CreateRefused(failure.slice(0, colon), failure.slice(colon + 1));
}

/**
 * Creates one link through the process's create batcher: its expiry and forwarding as stored, or a
 * rejection with CreateRefused (or the call's error).
 */
export const createBatched = batchedOnPool<PlannedCreate, Created>(createLinks);
