// Link writes shared by the single and bulk endpoints: every change commits its outbox event in the same
// transaction and then writes the redirect record, so analytics and the redirect see it at once.
// Creates and deletes keep the account's stored link count (link-count.ts, decision 0037) in that
// same transaction, as its last statement.
import { randomUUID } from "node:crypto";
import { type CreateLinkBody, TOPICS, type UpdateLinkBody } from "@kurz/contracts";
import { isUniqueViolation, type Link, Prisma, type PrismaClient, sqlStateOf } from "@kurz/db";
import { ApiError, apiError, notFound } from "@kurz/service-kit";
import { enqueueLinkEvent, enqueueLinkEvents, linkEvent } from "../db/outbox.ts";
import { campaignsOfLinks, type LegacyRecords } from "../projections/domain-and-rotator-records.ts";
import type { RedirectRecords } from "../projections/link-records.ts";
import { hashPassword } from "../security/passwords.ts";
import { createBatched } from "./create-batch.ts";
import { countLinksRemoved, linkLimitError, linkRoom } from "./link-count.ts";
import { linksByCode } from "./links-by-code.ts";
import { LINK_COLUMNS } from "./list-links.ts";
import { CodeReserved, reservedForOthers, retireCodes } from "./retired-codes.ts";
import { randomShortCode } from "./short-codes.ts";

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

/** SnipURL's documented wording (its clients show `error.message`); which alias is in `details`. */
export const aliasTakenError = (alias: string) =>
  apiError("CONFLICT", "This custom alias is already taken.", { custom_alias: alias });

/** What a bulk item's `failed[].error` says for a taken alias (SnipURL's documented wording). */
export const BULK_ALIAS_TAKEN = "Alias already taken";

/** SnipURL's documented wording for a missing link; the same for others' links (SPEC 5, rule 6). */
export const linkNotFound = () => notFound("Link not found.");

/**
 * A creation input whose title is settled (given, or fetched before any transaction is opened), with
 * its overlay and branded domain already checked to be the account's (link-targets.ts) and the
 * destination's framing checked when it has an overlay (frame-policy.ts).
 */
export type NewLink = CreateLinkBody & {
  title: string;
  overlayId?: number | null;
  domainId?: number | null;
  frameable?: boolean | null;
  /** `password` already hashed by the caller (bulk hashes all first, so no create waits on it). */
  passwordHash?: string;
};

/** What an update sets besides UpdateLinkBody's own members (checked by the caller, as for NewLink). */
export interface LinkExtras {
  overlayId?: number | null;
  frameable?: boolean | null;
}

/** The account's link `id` (others' and unknown ids alike: 404). */
export async function getLink(prisma: PrismaClient, accountId: string, id: string): Promise<Link> {
  const link = await prisma.link.findFirst({ where: { id, accountId } });
  if (!link) throw linkNotFound();
  return link;
}

/**
 * Early 403 before anything slow (title fetches, password hashing) when `adding` more links cannot fit.
 * Not a guarantee under concurrency: createLink's counter update is (link-count.ts).
 */
export async function assertRoomFor(prisma: PrismaClient, accountId: string, adding: number): Promise<void> {
  const account = await linkRoom(prisma, accountId);
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
    linksByCode(deps.prisma, aliases),
    reservedForOthers(deps.prisma, aliases, accountId, deps.retiredCodeGraceMs),
  ]);
  return new Set([...live.map((l) => l.short_code), ...reserved]);
}

/**
 * Creates one link; throws 403 at the link limit and 409 when the alias is taken or reserved. The insert,
 * its event and its count are one create of a batch (insertCountedLink); a generated code found taken
 * or retired is drawn once more.
 */
export async function createLink(deps: LinkWriterDeps, accountId: string, input: NewLink): Promise<Link> {
  // No await unless there is a password to hash: the create then reaches the batcher in the same turn
  // as its caller's call, so creates started in order are counted in that order (decision 0044).
  const passwordHash =
    input.passwordHash ?? (input.password !== undefined ? await hashPassword(input.password) : null);
  const cutoff = new Date(Date.now() - deps.retiredCodeGraceMs);
  const create = (shortCode: string) =>
    insertCountedLink(deps.prisma, accountId, cutoff, { ...input, shortCode, passwordHash });

  let link: Link;
  try {
    link = await create(input.custom_alias ?? randomShortCode());
  } catch (err) {
    if (!isUniqueViolation(err, "links_short_code_key") && !(err instanceof CodeReserved)) throw err;
    if (input.custom_alias !== undefined) throw aliasTakenError(input.custom_alias);
    link = await create(randomShortCode()); // a generated code was taken or retired; a fresh one will do
  }
  deps.onEventsWritten();
  await deps.records.put(link);
  return link;
}

/**
 * One create through the process's batcher (create-batch.ts, decision 0044), which calls the
 * database function `kurz_create_links` for the creates that arrive together: the link row (its expiry
 * defaulting from the account's setting), its `link.created` outbox event, and the account's stored
 * count, committed together or not at all (decisions 0044, 0037). The event is linkEvent's, built here
 * from the row as it will be inserted (every column is given, none left to a default); the function
 * fills in the expiry, which only the database knows when the account's default applies. Refusals
 * arrive as the SQLSTATEs the function reports.
 */
async function insertCountedLink(
  prisma: PrismaClient,
  accountId: string,
  cutoff: Date,
  input: Omit<NewLink, "passwordHash"> & { shortCode: string; passwordHash: string | null },
): Promise<Link> {
  const now = new Date();
  const planned: Link = {
    id: randomUUID(),
    accountId,
    shortCode: input.shortCode,
    originalUrl: input.url,
    title: input.title,
    passwordHash: input.passwordHash,
    isActive: true,
    expiresAt: input.expires_at !== undefined ? new Date(input.expires_at) : null,
    clicksCount: 0n,
    analyticsPublic: false,
    analyticsSharedFields: null,
    createdAt: now,
    updatedAt: now,
    overlayId: input.overlayId ?? null,
    domainId: input.domainId ?? null,
    frameable: input.frameable ?? null,
    frameCheckedAt: input.frameable != null ? now : null,
    version: 1n, // the column's default: a new row's first version
  };
  try {
    const expiresAt = await createBatched(prisma, {
      id: planned.id,
      account: accountId,
      code: planned.shortCode,
      url: planned.originalUrl,
      title: planned.title,
      password_hash: planned.passwordHash,
      expires_at: planned.expiresAt?.toISOString() ?? null,
      created: now.toISOString(),
      generated: input.custom_alias === undefined,
      cutoff: cutoff.toISOString(),
      topic: TOPICS.links,
      event: linkEvent("link.created", planned),
      overlay_id: planned.overlayId,
      domain_id: planned.domainId,
      frameable: planned.frameable,
      frame_checked_at: planned.frameCheckedAt?.toISOString() ?? null,
    });
    return { ...planned, expiresAt };
  } catch (err) {
    switch (sqlStateOf(err)) {
      case "KZ401":
        throw new ApiError(401, "UNAUTHORIZED", "Unknown account");
      case "KZ409":
        // Retired (a generated code: drawn again) or reserved to another account within the grace.
        throw new CodeReserved(`the code '${input.shortCode}' is retired or reserved`);
      case "KZ403":
        throw linkLimitError(await linkLimitOf(prisma, accountId));
      case "23503":
        // Its branded domain or overlay was deleted after the caller checked it (link-targets.ts).
        throw new ApiError(400, "VALIDATION_ERROR", "The link's domain or overlay no longer exists", {
          _errors: ["The link's domain or overlay no longer exists"],
        });
      default:
        throw err;
    }
  }
}

const linkLimitOf = async (prisma: PrismaClient, accountId: string): Promise<number> => {
  const account = await prisma.account.findUnique({ where: { id: accountId }, select: { linkLimit: true } });
  return account?.linkLimit ?? 0;
};

const ownedLink = async (tx: Tx, accountId: string, id: string) => {
  // FOR UPDATE: two concurrent PATCHes of one link commit (and write Redis) in a single order.
  const [row] = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM links WHERE id = ${id}::uuid AND account_id = ${accountId}::uuid FOR UPDATE`;
  if (!row) throw linkNotFound();
};

export async function updateLink(
  deps: LinkWriterDeps,
  accountId: string,
  id: string,
  body: UpdateLinkBody,
  extras: LinkExtras = {},
): Promise<Link> {
  if (Object.keys(body).length === 0) {
    // Nothing to change: no write, no event, updated_at stays (it records changes, not requests).
    const link = await deps.prisma.link.findFirst({ where: { id, accountId } });
    if (!link) throw linkNotFound();
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
  if (extras.overlayId !== undefined) {
    data.overlay = extras.overlayId === null ? { disconnect: true } : { connect: { id: extras.overlayId } };
  }
  if (extras.frameable !== undefined) {
    data.frameable = extras.frameable;
    data.frameCheckedAt = extras.frameable === null ? null : new Date();
  }
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
  const deleted = await deps.prisma.$transaction((tx) => deleteLinksInTx(tx, accountId, ids));
  await afterLinksDeleted(deps, deleted);
  return deleted.links;
}

/** What deleteLinksInTx removed, and the campaigns whose rotators listed those links. */
export interface DeletedLinks {
  links: Link[];
  campaignIds: number[];
}

/**
 * The delete itself, inside the caller's transaction (a branded domain's delete removes its links in
 * the same one): the rows, one `link.deleted` event each, their retired codes and the account's count.
 * Call afterLinksDeleted once it has committed.
 */
export async function deleteLinksInTx(
  tx: Tx,
  accountId: string,
  ids: readonly string[],
): Promise<DeletedLinks> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return { links: [], campaignIds: [] };
  const campaignIds = await campaignsOfLinks(tx, unique);
  const links = await tx.$queryRaw<Link[]>`
    DELETE FROM links WHERE account_id = ${accountId}::uuid AND id = ANY(${unique}::uuid[])
    RETURNING ${LINK_COLUMNS}`;
  await enqueueLinkEvents(
    tx,
    links.map((link) => linkEvent("link.deleted", link)),
  );
  await retireCodes(tx, accountId, links);
  // RETURNING lists only the rows this statement deleted, so a concurrent delete of the same ids
  // cannot make the count go down twice.
  await countLinksRemoved(tx, accountId, links);
  return { links, campaignIds };
}

/** After the commit: the relay publishes the events, the redirect drops the codes, rotators skip them. */
export async function afterLinksDeleted(
  deps: LinkWriterDeps,
  { links, campaignIds }: DeletedLinks,
): Promise<void> {
  if (links.length === 0) return;
  deps.onEventsWritten();
  await deps.records.removeMany(links);
  await deps.legacyRecords.syncRotators(deps.prisma, campaignIds);
}
