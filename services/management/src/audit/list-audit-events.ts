// Reading the audit log: the workspace's events newest first, filtered, a page at a time by id (the
// cursor is the last id a page showed), or every match as CSV for an export.
import { Readable } from "node:stream";
import { AUDIT_CSV_COLUMNS, type AuditEvent, type AuditLogPage, type AuditLogQuery } from "@kurz/contracts";
import { Prisma, type PrismaClient } from "@kurz/db";
import { csvLine } from "@kurz/service-kit";
import type { AuditRow } from "./record-audit.ts";

/** Rows per query of the CSV export: memory stays flat however long the log. */
const EXPORT_PAGE = 1_000;

/** A stored event: the row its writer gave (record-audit.ts), with its id and time. */
interface AuditEventRow extends Omit<AuditRow, "account_id"> {
  id: bigint;
  occurred_at: Date;
}

export type AuditFilter = Omit<AuditLogQuery, "limit" | "format">;

function toAuditEvent(row: AuditEventRow): AuditEvent {
  return {
    id: row.id.toString(),
    occurred_at: row.occurred_at.toISOString(),
    actor: { type: row.actor_type, id: row.actor_id, label: row.actor_label },
    action: row.action,
    resource_type: row.resource_type,
    resource_id: row.resource_id,
    ip_prefix: row.ip_prefix,
    user_agent_family: row.user_agent_family,
    details: row.details,
  };
}

/** At most `limit` events older than `filter.cursor`, newest first; always this account's only. */
async function auditRows(
  prisma: PrismaClient,
  accountId: string,
  filter: AuditFilter,
  limit: number,
): Promise<AuditEventRow[]> {
  const where: Prisma.Sql[] = [Prisma.sql`account_id = ${accountId}::uuid`];
  if (filter.cursor !== undefined) where.push(Prisma.sql`id < ${BigInt(filter.cursor)}`);
  if (filter.actor !== undefined) where.push(Prisma.sql`actor_id = ${filter.actor}::uuid`);
  if (filter.resource_type !== undefined) where.push(Prisma.sql`resource_type = ${filter.resource_type}`);
  if (filter.resource_id !== undefined) where.push(Prisma.sql`resource_id = ${filter.resource_id}`);
  if (filter.action !== undefined) where.push(Prisma.sql`action = ${filter.action}`);
  if (filter.from !== undefined) where.push(Prisma.sql`occurred_at >= ${new Date(filter.from)}`);
  if (filter.to !== undefined) where.push(Prisma.sql`occurred_at < ${new Date(filter.to)}`);
  return prisma.$queryRaw<AuditEventRow[]>`
    SELECT id, occurred_at, actor_type, actor_id::text AS actor_id, actor_label, action, resource_type,
           resource_id, ip_prefix, user_agent_family, details
    FROM audit_events WHERE ${Prisma.join(where, " AND ")}
    ORDER BY id DESC LIMIT ${limit}`;
}

export async function listAuditEvents(
  prisma: PrismaClient,
  accountId: string,
  query: AuditFilter & { limit: number },
): Promise<AuditLogPage> {
  // One more than asked tells whether there is a next page without a count.
  const rows = await auditRows(prisma, accountId, query, query.limit + 1);
  const page = rows.slice(0, query.limit);
  return {
    events: page.map(toAuditEvent),
    next_cursor: rows.length > query.limit ? page[page.length - 1]!.id.toString() : null,
  };
}

/**
 * Every matching event as CSV, newest first. Labels and details are what people typed (a key's name):
 * csvLine neutralises a cell a spreadsheet would run as a formula.
 */
export function auditEventsCsv(prisma: PrismaClient, accountId: string, filter: AuditFilter): Readable {
  async function* csv() {
    yield csvLine(AUDIT_CSV_COLUMNS);
    let cursor = filter.cursor;
    for (;;) {
      const rows = await auditRows(prisma, accountId, { ...filter, cursor }, EXPORT_PAGE);
      for (const row of rows) {
        const event = toAuditEvent(row);
        yield csvLine([
          event.id,
          event.occurred_at,
          event.actor.type,
          event.actor.id,
          event.actor.label,
          event.action,
          event.resource_type,
          event.resource_id,
          event.ip_prefix,
          event.user_agent_family,
          event.details,
        ]);
      }
      if (rows.length < EXPORT_PAGE) return;
      cursor = rows[rows.length - 1]!.id.toString();
    }
  }
  return Readable.from(csv());
}
