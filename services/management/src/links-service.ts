// Link writes shared by the single and bulk endpoints: every change commits its outbox event in the same
// transaction and then writes the redirect record, so analytics and the redirect see it at once.
// Creates and deletes keep the account's stored link count (link-count.ts, decision 0012) in that
// same transaction, as its last statement.
import type { CreateLinkBody, UpdateLinkBody } from "@kurz/contracts";
import { isUniqueViolation, type Link, Prisma, type PrismaClient } from "@kurz/db";
import { ApiError, conflict, notFound, validation } from "@kurz/service-kit";
import { campaignsOfLinks, type LegacyRecords } from "./legacy-records.ts";
import { countLinksAdded, countLinksRemoved, linkLimitError } from "./link-count.ts";
import { LINK_COLUMNS } from "./link-list.ts";
import { enqueueLinkEvent, linkEvent } from "./outbox.ts";
import { hashPassword } from "./passwords.ts";
import type { RedirectRecords } from "./redirect-records.ts";
import { CodeReserved, claimCode, reservedForOthers, retireCodes } from "./retired-codes.ts";
import { freeShortCode } from "./short-codes.ts";

export interface LinkWriterDeps {
  prisma: PrismaClient;
  records: RedirectRecords;
  /** Campaign rotators list their links; a deleted link must leave them at once. */
  legacyRecords: Pick<LegacyRecords, "syncRotators">;
  onEventsWritten: () => void;
  /** How long a deleted code stays reserved to its former owner (RETIRED_CODE_DAYS). */
  retiredCodeGraceMs: number;
}

type Tx = Prisma.TransactionClient;

export { linkLimitError };

export const aliasTakenError = (alias: string) => conflict(`The alias '${alias}' is already taken`);

/** A creation input whose title is settled (given, or fetched before any transaction is opened). */
export type NewLink = CreateLinkBody & { title: string };

/**
 * Refuses a create that would leave no link in the past: a link dead on arrival is almost always a
 * clock or time-zone mistake. (PATCH may set a past expiry: that is how a client expires a link now.)
 */
export function assertFutureExpiry(expiresAt: string | undefined): void {
  if (expiresAt !== undefined && Date.parse(expiresAt) <= Date.now()) {
    throw validation("expires_at must be in the future", {
      errors: [],
      properties: { expires_at: { errors: ["Must be in the future"] } },
    });
  }
}

/**
 * Early 403 before anything slow (title fetches, password hashing) when `adding` more links cannot fit.
 * Not a guarantee under concurrency: createLink's counter update is (link-count.ts).
 */
export async function assertRoomFor(prisma: PrismaClient, accountId: string, adding: number): Promise<void> {
  const account = await prisma.account.findUnique({
    where: { id: accountId },
    select: { linkLimit: true, linkCount: true },
  });
  if (!account) throw new ApiError(401, "UNAUTHORIZED", "Unknown account");
  if (account.linkCount + adding > account.linkLimit) throw linkLimitError(account.linkLimit);
}

/**
 * The aliases among `aliases` that `accountId` cannot have now: in use, or retired by another account
 * within the grace. Both answer the same 409, so a caller learns nothing about a deleted link.
 */
export async function unavailableAliases(
  deps: Pick<LinkWriterDeps, "prisma" | "retiredCodeGraceMs">,
  accountId: string,
  aliases: readonly string[],
): Promise<Set<string>> {
  if (aliases.length === 0) return new Set();
  const [live, reserved] = await Promise.all([
    deps.prisma.link.findMany({ where: { shortCode: { in: [...aliases] } }, select: { shortCode: true } }),
    reservedForOthers(deps.prisma, aliases, accountId, deps.retiredCodeGraceMs),
  ]);
  return new Set([...live.map((l) => l.shortCode), ...reserved]);
}

/** Creates one link; throws 403 at the link limit and 409 when the alias is taken or reserved. */
export async function createLink(deps: LinkWriterDeps, accountId: string, input: NewLink): Promise<Link> {
  const passwordHash = input.password !== undefined ? await hashPassword(input.password) : null;
  const create = () =>
    deps.prisma.$transaction(async (tx) => {
      // A plain read: the account row is locked only by the counter update that ends the transaction.
      const [account] = await tx.$queryRaw<{ default_expiry_hours: number | null }[]>`
        SELECT default_expiry_hours FROM accounts WHERE id = ${accountId}::uuid`;
      if (!account) throw new ApiError(401, "UNAUTHORIZED", "Unknown account");

      const expiresAt =
        input.expires_at !== undefined
          ? new Date(input.expires_at)
          : account.default_expiry_hours !== null
            ? new Date(Date.now() + account.default_expiry_hours * 3_600_000)
            : null;
      const link = await tx.link.create({
        data: {
          accountId,
          shortCode: input.custom_alias ?? (await freeShortCode(tx)),
          originalUrl: input.url,
          title: input.title,
          passwordHash,
          expiresAt,
        },
      });
      await claimCode(tx, link.shortCode, accountId, deps.retiredCodeGraceMs);
      await enqueueLinkEvent(tx, linkEvent("link.created", link));
      // Last, so concurrent creates of the account wait for each other only from here to commit; at the
      // limit it throws the 403 and the whole transaction rolls back.
      await countLinksAdded(tx, accountId, 1);
      return link;
    });

  let link: Link;
  try {
    link = await create();
  } catch (err) {
    if (!isUniqueViolation(err, "links_short_code_key") && !(err instanceof CodeReserved)) throw err;
    if (input.custom_alias !== undefined) throw aliasTakenError(input.custom_alias);
    link = await create(); // a generated code raced with another insert or delete; a fresh code will do
  }
  deps.onEventsWritten();
  await deps.records.put(link);
  return link;
}

const ownedLink = async (tx: Tx, accountId: string, id: string) => {
  // FOR UPDATE: two concurrent PATCHes of one link commit (and write Redis) in a single order.
  const [row] = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM links WHERE id = ${id}::uuid AND account_id = ${accountId}::uuid FOR UPDATE`;
  if (!row) throw notFound("Link not found");
};

export async function updateLink(
  deps: LinkWriterDeps,
  accountId: string,
  id: string,
  body: UpdateLinkBody,
): Promise<Link> {
  if (Object.keys(body).length === 0) {
    // Nothing to change: no write, no event, updated_at stays (it records changes, not requests).
    const link = await deps.prisma.link.findFirst({ where: { id, accountId } });
    if (!link) throw notFound("Link not found");
    return link;
  }
  const data: Prisma.LinkUpdateInput = { updatedAt: new Date() };
  if (body.title !== undefined) data.title = body.title;
  if (body.is_active !== undefined) data.isActive = body.is_active;
  if (body.password !== undefined) {
    data.passwordHash = body.password === null ? null : await hashPassword(body.password);
  }
  if (body.expires_at !== undefined) {
    data.expiresAt = body.expires_at === null ? null : new Date(body.expires_at);
  }
  if (body.analytics_public !== undefined) data.analyticsPublic = body.analytics_public;
  if (body.analytics_shared_fields !== undefined) {
    data.analyticsSharedFields =
      body.analytics_shared_fields === null ? Prisma.DbNull : body.analytics_shared_fields;
  }
  const link = await deps.prisma.$transaction(async (tx) => {
    await ownedLink(tx, accountId, id);
    const updated = await tx.link.update({ where: { id }, data });
    await enqueueLinkEvent(tx, linkEvent("link.updated", updated));
    return updated;
  });
  deps.onEventsWritten();
  await deps.records.put(link);
  return link;
}

/**
 * Deletes the account's links among `ids` (others' and unknown ids are skipped) and returns what was
 * removed. The `link.deleted` events make analytics drop the click data; the codes stay reserved to
 * this account for the grace period (retired-codes.ts), recorded in the same transaction.
 */
export async function deleteLinks(
  deps: LinkWriterDeps,
  accountId: string,
  ids: readonly string[],
): Promise<Link[]> {
  const unique = [...new Set(ids)];
  let campaignIds: number[] = [];
  const removed = await deps.prisma.$transaction(async (tx) => {
    campaignIds = await campaignsOfLinks(tx, unique);
    const links = await tx.$queryRaw<Link[]>`
      DELETE FROM links WHERE account_id = ${accountId}::uuid AND id = ANY(${unique}::uuid[])
      RETURNING ${LINK_COLUMNS}`;
    for (const link of links) await enqueueLinkEvent(tx, linkEvent("link.deleted", link));
    await retireCodes(tx, accountId, links);
    // RETURNING lists only the rows this statement deleted, so a concurrent delete of the same ids
    // cannot make the count go down twice.
    await countLinksRemoved(tx, accountId, links.length);
    return links;
  });
  if (removed.length > 0) deps.onEventsWritten();
  await Promise.all(removed.map((link) => deps.records.remove(link.shortCode)));
  if (removed.length > 0) await deps.legacyRecords.syncRotators(deps.prisma, campaignIds);
  return removed;
}
