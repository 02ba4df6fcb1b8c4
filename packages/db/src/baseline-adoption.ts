// The first migration, BASELINE_MIGRATION, creates the whole schema at once. Databases migrated before
// it existed ran the chain of migrations it stands for instead (PRE_BASELINE_MIGRATIONS, which are no
// longer in the tree); their schema is the baseline's, so they are adopted: the baseline is recorded as
// applied without running, and the sql/ definitions are then applied as for any database. A database
// that ran only part of that chain cannot be adopted (the rest is not here to run) and is refused.
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type pg from "pg";
import { MIGRATIONS_DIR } from "./migrations-dir.ts";

export const BASELINE_MIGRATION = "20261202040000_baseline";

/** The migrations BASELINE_MIGRATION replaced, in the order they ran. */
export const PRE_BASELINE_MIGRATIONS: readonly string[] = [
  "20261121061742_init",
  "20261121064226_legacy_resources",
  "20261121064317_link_list_search_indexes",
  "20261123173248_domain_verification_retired_codes",
  "20261123182623_stored_link_count",
  "20261123235500_create_link_in_one_call",
  "20261124204410_sessions",
  "20261124205048_webhooks",
  "20261124205411_overlays_link_domains_rotator_weights",
  "20261124213000_import_jobs",
  "20261125000000_domain_delete_takes_links",
  "20261125023845_links_original_url_hash",
  "20261125050438_link_quota_shards",
  "20261127153000_outbox_rows_deleted_once_published",
  "20261127203000_create_links_in_batches",
  "20261128120000_links_url_lookup_by_account",
  "20261128170000_links_active_count_by_expiry",
  "20261129040000_links_record_version",
  "20261129050000_domains_overlays_record_version",
  "20261201212657_campaigns_public_id",
  "20261201212745_sessions_confirmed_at",
  "20261201212844_import_jobs_hashes_and_title_budget",
  "20261201213013_account_rate_limits",
  "20261202003000_import_needs_attention",
  "20261202003514_import_codes",
];

export class PartialPreBaselineError extends Error {
  constructor(readonly missing: string[]) {
    const dir = `packages/db/prisma/migrations/${BASELINE_MIGRATION}`;
    super(
      `This database ran ${PRE_BASELINE_MIGRATIONS.length - missing.length} of the ` +
        `${PRE_BASELINE_MIGRATIONS.length} migrations that ${BASELINE_MIGRATION} replaced (missing: ` +
        `${missing.length > 1 ? `${missing[0]} and ${missing.length - 1} more` : missing[0]}), and ` +
        "this version no longer has them. Finish them with the version before the baseline: check out " +
        `the parent of the commit that added ${dir} (git log --diff-filter=A --format=%H -- ${dir}), ` +
        "run `pnpm db:migrate` there with this DATABASE_URL, then migrate with this version again.",
    );
    this.name = "PartialPreBaselineError";
  }
}

/**
 * Records the baseline as applied when the database ran every migration it replaced; refuses one that
 * ran only some of them. `applied` is the migrations finished and not rolled back. Returns whether it
 * adopted the database. The caller holds the migration lock.
 */
export async function adoptPreBaselineDatabase(client: pg.Client, applied: Set<string>): Promise<boolean> {
  if (applied.has(BASELINE_MIGRATION)) return false;
  const missing = PRE_BASELINE_MIGRATIONS.filter((name) => !applied.has(name));
  if (missing.length === PRE_BASELINE_MIGRATIONS.length) return false;
  if (missing.length > 0) throw new PartialPreBaselineError(missing);
  // Prisma's own checksum (sha256 of the file), so `prisma migrate` sees the row as its own; the old
  // chain's rows stay, as the history of what ran.
  const sql = await readFile(join(MIGRATIONS_DIR, BASELINE_MIGRATION, "migration.sql"));
  await client.query(
    `INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
     VALUES (gen_random_uuid()::text, $1, $2, now(), now(), 0)`,
    [createHash("sha256").update(sql).digest("hex"), BASELINE_MIGRATION],
  );
  return true;
}
