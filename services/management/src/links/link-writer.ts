// What every link write needs, and the refusals the link use cases share. Every write commits its outbox
// event in the same transaction as the change and then writes the redirect record, so analytics and the
// redirect see it at once; creates and deletes keep the account's stored link count (link-count.ts) in
// that same transaction, as its last statement.
import type { PrismaClient } from "@kurz/db";
import { apiError, notFound } from "@kurz/service-kit";
import type { DomainAndRotatorRecords } from "../projections/domain-and-rotator-records.ts";
import type { RedirectRecords } from "../projections/link-records.ts";

export interface LinkWriterDeps {
  prisma: PrismaClient;
  records: RedirectRecords;
  /** Campaign rotators list their links; a deleted link must leave them at once. */
  domainAndRotatorRecords: Pick<DomainAndRotatorRecords, "syncRotators">;
  onEventsWritten: () => void;
  /** How long a deleted code stays reserved to its former owner (RETIRED_CODE_DAYS). */
  retiredCodeGraceMs: number;
}

/** SnipURL's documented wording (its clients show `error.message`); which alias is in `details`. */
export const aliasTakenError = (alias: string) =>
  apiError("CONFLICT", "This custom alias is already taken.", { custom_alias: alias });

/** What a bulk item's `failed[].error` says for a taken alias (SnipURL's documented wording). */
export const BULK_ALIAS_TAKEN = "Alias already taken";

/** SnipURL's documented wording for a missing link; the same for others' links. */
export const linkNotFound = () => notFound("Link not found.");
