// /api/v1/links/bulk: the same createLinks as POST /links, for up to 50 items. Creation
// is non-transactional: each item succeeds or lands in `failed` with its index; only a malformed batch
// (400) or one that cannot fit the link limit (403) fails as a whole, and the latter is decided before
// anything is created.
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
import { createLinks } from "../links/create-links.ts";
import { deleteLinks } from "../links/delete-links.ts";
import { BULK_ALIAS_TAKEN } from "../links/link-writer.ts";
import { accountDomains, NO_DOMAINS, shortUrlOf } from "../links/short-url.ts";
import type { LinksDeps } from "./links.ts";

export function bulkRoutes(deps: LinksDeps & { logger: Logger }): MountedRoute[] {
  const create = route(
    ROUTES.bulkCreateLinks,
    async ({ identity: { accountId, keyId }, body: batch, req }) => {
      const failed: BulkCreateFailureItem[] = [];
      const indexes: number[] = [];
      const items: CreateLinkBody[] = [];
      for (const [index, raw] of batch.links.entries()) {
        const parsed = CreateLinkBody.safeParse(raw);
        if (!parsed.success) {
          failed.push({ index, error: summarizeIssues(parsed.error.issues) });
          continue;
        }
        // A past expires_at is accepted, as in single create (the link is created expired).
        indexes.push(index);
        items.push(parsed.data);
      }
      const outcomes = await createLinks(deps, { accountId, keyId }, items);

      const success: BulkCreateResultItem[] = [];
      const domains = items.some((item) => item.domain !== undefined)
        ? await accountDomains(deps.prisma, accountId)
        : NO_DOMAINS;
      for (const [i, outcome] of outcomes.entries()) {
        const index = indexes[i]!;
        if ("error" in outcome) {
          // Expected refusals (alias taken, limit reached by a concurrent request) carry their message;
          // a fault is logged and reported without internals, as the other items may be created.
          const err = outcome.error;
          if (isApiError(err) && err.status < 500) {
            failed.push({ index, error: err.code === "CONFLICT" ? BULK_ALIAS_TAKEN : err.message });
          } else {
            requestLog(req, deps.logger)?.error({ err, index }, "bulk item failed");
            failed.push({ index, error: "Internal error while creating this link; try again" });
          }
          continue;
        }
        const { link } = outcome;
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
