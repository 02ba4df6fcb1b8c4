// Creating links: POST /links is a batch of one, POST /links/bulk a batch of up to 50; both come here.
// Each item is created or refused on its own; only a batch that cannot fit the account's link limit
// fails as a whole (403), decided before anything is created. Cheap refusals come first (the limit, the
// aliases, the overlay and domain, the smart members' targets and image), so a doomed item never waits
// for a title fetch or a password hash.
// Title fetches beyond the first are charged to the key's rate budget (titles/title-budget.ts); items
// past the budget get the fallback title without a fetch, so an item never fails for its title.
//
// Imports create links their own way (imports/import-batch.ts): a batch of rows commits in one
// transaction with the job's counters, and a row already imported is skipped rather than refused.
import type { CreateLinkBody } from "@kurz/contracts";
import type { Link } from "@kurz/db";
import { isApiError, type Logger } from "@kurz/service-kit";
import type { Redis } from "ioredis";
import pLimit from "p-limit";
import { hashPassword } from "../security/passwords.ts";
import { titleFetchAllowance } from "../titles/title-budget.ts";
import { fallbackTitle, type TitleFetcher } from "../titles/title-fetcher.ts";
import { insertLink, type NewLink } from "./insert-link.ts";
import { assertRoomFor } from "./link-count.ts";
import { ownOverlayId, ownVerifiedDomainId } from "./link-targets.ts";
import { aliasTakenError, type LinkWriterDeps } from "./link-writer.ts";
import { linksByCode } from "./links-by-code.ts";
import { reservedForOthers } from "./retired-codes.ts";
import { checkSmartMembers, type SmartCheckDeps, smartMembersIn } from "./smart-fields.ts";

/** Concurrent title fetches per batch: enough to hide latency (the fetcher also caps each host). */
const TITLE_CONCURRENCY = 8;

export interface CreateLinksDeps extends LinkWriterDeps, Omit<SmartCheckDeps, "prisma"> {
  /** Titles for links created without one, and whether a destination may be framed under an overlay. */
  titles: Pick<TitleFetcher, "titleFor" | "enabled"> & Partial<Pick<TitleFetcher, "framingAllowed">>;
  /** The rate counters title fetches beyond the first are charged to. */
  redis: Redis;
  logger?: Logger;
}

/** Who creates: the account, and the API key whose budget pays for extra title fetches (none: a session). */
export interface Creator {
  accountId: string;
  keyId: string | null;
}

/** Each item's link, or why it was refused (an ApiError for the expected refusals). */
export type CreateOutcome = { link: Link } | { error: unknown };

/** Whether an item costs something slow (a title fetch, a password hash, an alias lookup). */
const slow = (item: CreateLinkBody) =>
  item.title === undefined || item.password !== undefined || item.custom_alias !== undefined;

/**
 * Creates `items` for the account, in input order, and answers each one's outcome at its index. Throws
 * (nothing created) when the batch cannot fit the link limit (403) or the account is unknown (401).
 */
export async function createLinks(
  deps: CreateLinksDeps,
  { accountId, keyId }: Creator,
  items: readonly CreateLinkBody[],
): Promise<CreateOutcome[]> {
  const outcomes: CreateOutcome[] = new Array(items.length);
  // A lone item with nothing slow skips the read: the insert's own count update refuses as early, and
  // exactly (link-count.ts). Its refusal for the limit or the account is then the batch's.
  const roomChecked = items.length !== 1 || items.some(slow);
  if (roomChecked) await assertRoomFor(deps.prisma, accountId, items.length);

  // Aliases already taken (or reserved) fail here, before they cost anything.
  const unavailable = await unavailableAliases(
    deps,
    accountId,
    items.flatMap((item) => (item.custom_alias === undefined ? [] : [item.custom_alias])),
  );
  // Then each item's overlay and domain (another account's, or an unverified domain, fails that item).
  const targeted: {
    index: number;
    item: CreateLinkBody;
    overlayId: number | null;
    domainId: number | null;
  }[] = [];
  for (const [index, item] of items.entries()) {
    if (item.custom_alias !== undefined && unavailable.has(item.custom_alias)) {
      outcomes[index] = { error: aliasTakenError(item.custom_alias) };
      continue;
    }
    try {
      const overlayId =
        item.overlay_id !== undefined ? await ownOverlayId(deps.prisma, accountId, item.overlay_id) : null;
      const domainId =
        item.domain !== undefined ? await ownVerifiedDomainId(deps.prisma, accountId, item.domain) : null;
      if (smartMembersIn(item).length > 0 || item.broken_url !== undefined) {
        await checkSmartMembers(deps, accountId, item);
      }
      targeted.push({ index, item, overlayId, domainId });
    } catch (err) {
      outcomes[index] = { error: err };
    }
  }

  // The first items (in input order) that need a title get a fetch while the budget lasts; the title
  // and the framing check are two reads of the same destination, made together. Passwords are hashed
  // here too, so no insert waits on a hash.
  const wanting = deps.titles.enabled ? targeted.filter(({ item }) => item.title === undefined).length : 0;
  let fetches = await titleFetchAllowance(deps, keyId, wanting);
  const limit = pLimit(TITLE_CONCURRENCY);
  const settled = await Promise.all(
    targeted.map(async ({ index, item, overlayId, domainId }) => {
      const mayFetch = item.title === undefined && fetches-- > 0;
      try {
        const [title, frameable, passwordHash] = await Promise.all([
          item.title ?? (mayFetch ? limit(() => deps.titles.titleFor(item.url)) : fallbackTitle(item.url)),
          overlayId !== null ? (deps.titles.framingAllowed?.(item.url) ?? null) : null,
          item.password !== undefined ? hashPassword(item.password) : undefined,
        ]);
        const input: NewLink = { ...item, title, overlayId, domainId, frameable };
        if (passwordHash !== undefined) input.passwordHash = passwordHash;
        return { index, input };
      } catch (err) {
        outcomes[index] = { error: err };
        return null;
      }
    }),
  );
  const planned = settled.filter((p) => p !== null);

  // Every insert at once, started in input order: they reach the process's create batcher together and
  // in that order (create-batch.ts), so they are one database call, the first of two equal aliases
  // wins, and at the limit the first items get the room.
  const inserted = await Promise.allSettled(planned.map(({ input }) => insertLink(deps, accountId, input)));
  for (const [i, result] of inserted.entries()) {
    const { index } = planned[i]!;
    if (result.status === "fulfilled") outcomes[index] = { link: result.value };
    else if (!roomChecked && isApiError(result.reason) && [401, 403].includes(result.reason.status)) {
      throw result.reason;
    } else outcomes[index] = { error: result.reason };
  }
  return outcomes;
}

/**
 * The aliases among `aliases` that `accountId` cannot have now: in use, or retired by another account
 * within the grace. Both answer the same 409, so a caller learns nothing about a deleted link.
 */
async function unavailableAliases(
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
