// /api/v1/links/bulk (SPEC 4.1, 2.2). Creation is non-transactional: each item succeeds or lands in
// `failed` with its index; only a malformed batch (400) or one that cannot fit the link limit (403)
// fails as a whole, and the latter is decided before anything is created.
import {
  BulkCreateBatch,
  type BulkCreateFailureItem,
  type BulkCreateResultItem,
  BulkDeleteBody,
  CreateLinkBody,
} from "@kurz/contracts";
import {
  isApiError,
  type Logger,
  methodNotAllowed,
  requireIdentity,
  summarizeIssues,
  v1Success,
} from "@kurz/service-kit";
import { type Request, type Response, Router } from "express";
import pLimit from "p-limit";
import {
  assertFutureExpiry,
  assertRoomFor,
  createLink,
  deleteLinks,
  type NewLink,
} from "../links-service.ts";
import type { LinksDeps } from "./links.ts";

/** Concurrent title fetches per batch: enough to hide latency, few enough not to hammer one host. */
const TITLE_CONCURRENCY = 8;

export function bulkRouter(deps: LinksDeps): Router {
  const router = Router();

  const create = async (req: Request, res: Response) => {
    const { accountId } = requireIdentity(res);
    const batch = BulkCreateBatch.parse(req.body);
    const failed: BulkCreateFailureItem[] = [];
    const valid: { index: number; item: CreateLinkBody }[] = [];
    for (const [index, raw] of batch.links.entries()) {
      const parsed = CreateLinkBody.safeParse(raw);
      if (!parsed.success) {
        failed.push({ index, error: summarizeIssues(parsed.error.issues) });
        continue;
      }
      try {
        assertFutureExpiry(parsed.data.expires_at);
        valid.push({ index, item: parsed.data });
      } catch (err) {
        failed.push({ index, error: (err as Error).message });
      }
    }
    await assertRoomFor(deps.prisma, accountId, valid.length);

    const limit = pLimit(TITLE_CONCURRENCY);
    const ready: { index: number; item: NewLink }[] = await Promise.all(
      valid.map(async ({ index, item }) => ({
        index,
        item: { ...item, title: item.title ?? (await limit(() => deps.titles.titleFor(item.url))) },
      })),
    );

    // In input order, so which of two equal aliases wins is predictable (the first).
    const success: BulkCreateResultItem[] = [];
    for (const { index, item } of ready) {
      try {
        const link = await createLink(deps, accountId, item);
        success.push({
          id: link.id,
          short_code: link.shortCode,
          short_url: `${deps.baseUrl}/${link.shortCode}`,
          original_url: link.originalUrl,
          title: link.title,
          created_at: link.createdAt.toISOString(),
        });
      } catch (err) {
        // Expected refusals (alias taken, limit reached by a concurrent request) carry their message;
        // a fault is logged and reported without internals, as the items before it are already created.
        if (isApiError(err) && err.status < 500) {
          failed.push({ index, error: err.message });
        } else {
          (req as Request & { log?: Logger }).log?.error({ err, index }, "bulk item failed");
          failed.push({ index, error: "Internal error while creating this link; try again" });
        }
      }
    }
    failed.sort((a, b) => a.index - b.index);
    res.status(201).json(v1Success({ success, failed }));
  };

  const remove = async (req: Request, res: Response) => {
    const { accountId } = requireIdentity(res);
    const { ids } = BulkDeleteBody.parse(req.body);
    const removed = await deleteLinks(deps, accountId, ids);
    res.json(v1Success({ deleted: removed.length }));
  };

  router
    .route("/")
    .post(create)
    .delete(remove)
    .all(methodNotAllowed(["POST", "DELETE"]));
  return router;
}
