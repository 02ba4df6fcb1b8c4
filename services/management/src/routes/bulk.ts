// /api/v1/links/bulk (SPEC 4.1, 2.2). Creation is non-transactional: each item succeeds or lands in
// `failed` with its index; only a malformed batch (400) or one that cannot fit the link limit (403)
// fails as a whole, and the latter is decided before anything is created. Title fetches beyond the
// first are charged to the key's rate budget (title-budget.ts); items past the budget get the fallback
// title without a fetch, so a batch never fails for a title.
import {
  type BulkCreateFailureItem,
  type BulkCreateResultItem,
  CreateLinkBody,
  ROUTES,
} from "@kurz/contracts";
import {
  isApiError,
  type Logger,
  type MountedRoute,
  requestLog,
  route,
  summarizeIssues,
  v1Success,
} from "@kurz/service-kit";
import type { Redis } from "ioredis";
import pLimit from "p-limit";
import {
  assertRoomFor,
  BULK_ALIAS_TAKEN,
  createLink,
  deleteLinks,
  type NewLink,
  unavailableAliases,
} from "../links/create-links.ts";
import { ownOverlayId, ownVerifiedDomainId } from "../links/link-targets.ts";
import { accountDomains, NO_DOMAINS, shortUrlOf } from "../links/short-url.ts";
import { hashPassword } from "../security/passwords.ts";
import { titleFetchAllowance } from "../titles/title-budget.ts";
import { fallbackTitle } from "../titles/title-fetcher.ts";
import type { LinksDeps } from "./links.ts";

/** Concurrent title fetches per batch: enough to hide latency (the fetcher also caps each host). */
const TITLE_CONCURRENCY = 8;

export function bulkRoutes(deps: LinksDeps & { redis: Redis; logger: Logger }): MountedRoute[] {
  const create = route(
    ROUTES.bulkCreateLinks,
    async ({ identity: { accountId, keyId }, body: batch, req }) => {
      const failed: BulkCreateFailureItem[] = [];
      // Expected refusals (alias taken, limit reached by a concurrent request) carry their message; a
      // fault is logged and reported without internals, as the other items may be created.
      const fail = (index: number, err: unknown) => {
        if (isApiError(err) && err.status < 500) {
          failed.push({ index, error: err.code === "CONFLICT" ? BULK_ALIAS_TAKEN : err.message });
        } else {
          requestLog(req, deps.logger)?.error({ err, index }, "bulk item failed");
          failed.push({ index, error: "Internal error while creating this link; try again" });
        }
      };
      const parsedItems: { index: number; item: CreateLinkBody }[] = [];
      for (const [index, raw] of batch.links.entries()) {
        const parsed = CreateLinkBody.safeParse(raw);
        if (!parsed.success) {
          failed.push({ index, error: summarizeIssues(parsed.error.issues) });
          continue;
        }
        // A past expires_at is accepted, as in single create (the link is created expired).
        parsedItems.push({ index, item: parsed.data });
      }
      await assertRoomFor(deps.prisma, accountId, parsedItems.length);

      // Aliases already taken (or reserved) fail here, before their titles cost a fetch.
      const unavailable = await unavailableAliases(
        deps,
        accountId,
        parsedItems.flatMap(({ item }) => (item.custom_alias === undefined ? [] : [item.custom_alias])),
      );
      const valid = parsedItems.filter(({ index, item }) => {
        if (item.custom_alias === undefined || !unavailable.has(item.custom_alias)) return true;
        failed.push({ index, error: BULK_ALIAS_TAKEN });
        return false;
      });

      // The first items (in input order) that need a title get a fetch while the budget lasts.
      const wanting = deps.titles.enabled ? valid.filter(({ item }) => item.title === undefined).length : 0;
      let fetches = await titleFetchAllowance(deps, keyId, wanting);
      const limit = pLimit(TITLE_CONCURRENCY);
      const ready: { index: number; item: NewLink }[] = await Promise.all(
        valid.map(async ({ index, item }) => {
          if (item.title !== undefined) return { index, item: { ...item, title: item.title } };
          const mayFetch = fetches-- > 0;
          const title = mayFetch
            ? await limit(() => deps.titles.titleFor(item.url))
            : fallbackTitle(item.url);
          return { index, item: { ...item, title } };
        }),
      );

      const domains = ready.some(({ item }) => item.domain !== undefined)
        ? await accountDomains(deps.prisma, accountId)
        : NO_DOMAINS;
      // Each item's overlay, domain and framing first (another account's overlay or domain, or an
      // unverified one, fails that item only), and its password hashed...
      const planned: { index: number; input: NewLink }[] = [];
      for (const { index, item } of ready) {
        try {
          const overlayId =
            item.overlay_id !== undefined
              ? await ownOverlayId(deps.prisma, accountId, item.overlay_id)
              : null;
          const domainId =
            item.domain !== undefined ? await ownVerifiedDomainId(deps.prisma, accountId, item.domain) : null;
          const frameable =
            overlayId !== null ? ((await deps.titles.framingAllowed?.(item.url)) ?? null) : null;
          planned.push({ index, input: { ...item, overlayId, domainId, frameable } });
        } catch (err) {
          fail(index, err);
        }
      }
      await Promise.all(
        planned.map(async (p) => {
          if (p.input.password !== undefined) p.input.passwordHash = await hashPassword(p.input.password);
        }),
      );
      // ...then every create at once, started in input order: they reach the process's create batcher
      // together and in that order (decision 0044), so they are one database call, the first of two
      // equal aliases wins, and at the limit the first items get the room.
      const outcomes = await Promise.allSettled(
        planned.map(({ input }) => createLink(deps, accountId, input)),
      );
      const success: BulkCreateResultItem[] = [];
      for (const [i, outcome] of outcomes.entries()) {
        if (outcome.status === "rejected") {
          fail(planned[i]!.index, outcome.reason);
          continue;
        }
        const link = outcome.value;
        success.push({
          id: link.id,
          short_code: link.shortCode,
          short_url: shortUrlOf(link, deps.baseUrl, domains),
          original_url: link.originalUrl,
          title: link.title,
          created_at: link.createdAt.toISOString(),
        });
      }
      failed.sort((a, b) => a.index - b.index);
      return v1Success({ success, failed });
    },
  );

  const remove = route(ROUTES.bulkDeleteLinks, async ({ identity: { accountId }, body: { ids } }) => {
    const removed = await deleteLinks(deps, accountId, ids);
    return v1Success({ deleted: removed.length });
  });

  return [create, remove];
}
