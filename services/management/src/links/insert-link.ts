// One link's insert, its title and targets already settled (create-links.ts settles them for a batch).
import { randomUUID } from "node:crypto";
import { type CreateLinkBody, TOPICS } from "@kurz/contracts";
import { isUniqueViolation, type Link, type PrismaClient, sqlStateOf } from "@kurz/db";
import { ApiError } from "@kurz/service-kit";
import { type AuditRow, auditRow } from "../audit/record-audit.ts";
import { linkEvent } from "../db/outbox.ts";
import { hashPassword } from "../security/passwords.ts";
import { createBatched } from "./create-batch.ts";
import { linkLimitError } from "./link-count.ts";
import { aliasTakenError, type LinkWriterDeps } from "./link-writer.ts";
import { CodeReserved } from "./retired-codes.ts";
import { randomShortCode } from "./short-codes.ts";
import { smartColumnsOf, smartMembersIn } from "./smart-fields.ts";

/**
 * A creation input whose title is settled (given, or fetched before any transaction is opened), with
 * its overlay and branded domain already checked to be the account's (link-targets.ts) and the
 * destination's framing checked when it has an overlay (overlays/frame-policy.ts).
 */
export type NewLink = CreateLinkBody & {
  title: string;
  overlayId?: number | null;
  domainId?: number | null;
  frameable?: boolean | null;
  /** `password` already hashed by the caller, so no insert waits on it. */
  passwordHash?: string;
};

/**
 * Inserts one link; throws 403 at the link limit and 409 when the alias is taken or reserved. The insert,
 * its event and its count are one create of a batch (insertCountedLink); a generated code found taken
 * or retired is drawn once more.
 */
export async function insertLink(deps: LinkWriterDeps, accountId: string, input: NewLink): Promise<Link> {
  // No await unless there is a password to hash: the create then reaches the batcher in the same turn
  // as its caller's call, so creates started in order are counted in that order (decision 0044).
  const passwordHash =
    input.passwordHash ?? (input.password !== undefined ? await hashPassword(input.password) : null);
  const cutoff = new Date(Date.now() - deps.retiredCodeGraceMs);
  // Read here, in the caller's request: the batch that writes it serves several callers at once.
  const smart = smartMembersIn(input);
  const audit = auditRow({
    accountId,
    action: "link.created",
    resourceType: "link",
    details: {
      ...(input.custom_alias !== undefined ? { custom_alias: true } : {}),
      ...(smart.length > 0 ? { smart } : {}),
    },
  });
  const create = (shortCode: string) =>
    insertCountedLink(deps.prisma, accountId, cutoff, { ...input, shortCode, passwordHash }, audit);

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
 * fills in the expiry, which only the database knows when the account's default applies. The link's
 * audit event goes in the same statement (no round trip of its own). Refusals
 * arrive as the SQLSTATEs the function reports.
 */
async function insertCountedLink(
  prisma: PrismaClient,
  accountId: string,
  cutoff: Date,
  input: Omit<NewLink, "passwordHash"> & { shortCode: string; passwordHash: string | null },
  audit: AuditRow,
): Promise<Link> {
  const now = new Date();
  const { forwardQuery, ...smart } = smartColumnsOf(input);
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
    ...smart,
    forwardQuery: forwardQuery ?? true, // the account's default when null: the database answers it
    brokenUrl: input.broken_url ?? null,
    brokenSince: null,
  };
  try {
    const created = await createBatched(prisma, {
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
      audit,
      rules: planned.rules,
      split: planned.split,
      forward_query: forwardQuery,
      max_clicks: planned.maxClicks,
      expired_url: planned.expiredUrl,
      og_title: planned.ogTitle,
      og_description: planned.ogDescription,
      og_image_id: planned.ogImageId,
      ios_url: planned.iosUrl,
      android_url: planned.androidUrl,
      broken_url: planned.brokenUrl,
    });
    return { ...planned, expiresAt: created.expires, forwardQuery: created.forwardQuery };
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
        // Its branded domain, overlay or preview image was deleted after the caller checked it.
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
