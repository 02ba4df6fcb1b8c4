// /api/v1/links and /api/v1/links/:id: the link resource (SPEC 4.1). Bulk lives in bulk.ts.
import { CreateLinkBody, LinkIdParams, ListLinksQuery, parseUpdateLinkBody } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import {
  badRequest,
  methodNotAllowed,
  notFound,
  requireIdentity,
  v1Success,
  validation,
} from "@kurz/service-kit";
import { type Request, type Response, Router } from "express";
import { toLinkJson } from "../link-json.ts";
import { listLinks } from "../link-list.ts";
import {
  aliasTakenError,
  assertFutureExpiry,
  assertRoomFor,
  createLink,
  deleteLinks,
  type LinkWriterDeps,
  unavailableAliases,
  updateLink,
} from "../links-service.ts";
import type { TitleFetcher } from "../title-fetcher.ts";

export interface LinksDeps extends LinkWriterDeps {
  prisma: PrismaClient;
  baseUrl: string;
  titles: Pick<TitleFetcher, "titleFor" | "enabled">;
}

const linkId = (req: Request) => LinkIdParams.parse(req.params).id;

export function linksRouter(deps: LinksDeps): Router {
  const router = Router();
  const { prisma } = deps;

  const create = async (req: Request, res: Response) => {
    const { accountId } = requireIdentity(res);
    const body = CreateLinkBody.parse(req.body);
    assertFutureExpiry(body.expires_at);
    // Cheap refusals first, so a doomed request never waits for a title fetch.
    await assertRoomFor(prisma, accountId, 1);
    if (
      body.custom_alias !== undefined &&
      (await unavailableAliases(deps, accountId, [body.custom_alias])).size > 0
    ) {
      throw aliasTakenError(body.custom_alias);
    }
    const title = body.title ?? (await deps.titles.titleFor(body.url));
    const link = await createLink(deps, accountId, { ...body, title });
    res.status(201).json(v1Success(toLinkJson(link, deps.baseUrl)));
  };

  const list = async (req: Request, res: Response) => {
    const { accountId } = requireIdentity(res);
    const query = ListLinksQuery.parse(req.query);
    const { links, total } = await listLinks(prisma, accountId, query);
    res.json(
      v1Success(
        links.map((link) => toLinkJson(link, deps.baseUrl)),
        {
          page: query.page,
          per_page: query.per_page,
          total,
          total_pages: Math.ceil(total / query.per_page),
        },
      ),
    );
  };

  const get = async (req: Request, res: Response) => {
    const { accountId } = requireIdentity(res);
    const link = await prisma.link.findFirst({ where: { id: linkId(req), accountId } });
    if (!link) throw notFound("Link not found");
    const shared = link.analyticsSharedFields;
    res.json(
      v1Success({
        ...toLinkJson(link, deps.baseUrl),
        analytics_shared_fields: Array.isArray(shared) ? (shared as string[]) : null,
      }),
    );
  };

  const update = async (req: Request, res: Response) => {
    const { accountId } = requireIdentity(res);
    const id = linkId(req);
    const parsed = parseUpdateLinkBody(req.body);
    if (!parsed.ok && parsed.code === "BAD_REQUEST") {
      throw badRequest(`${parsed.fields.join(" and ")} cannot be changed; create a new link instead`);
    }
    if (!parsed.ok) throw validation(parsed.error);
    const link = await updateLink(deps, accountId, id, parsed.data);
    res.json(v1Success(toLinkJson(link, deps.baseUrl)));
  };

  const remove = async (req: Request, res: Response) => {
    const { accountId } = requireIdentity(res);
    const removed = await deleteLinks(deps, accountId, [linkId(req)]);
    if (removed.length === 0) throw notFound("Link not found");
    res.json(v1Success({ deleted: true }));
  };

  router
    .route("/")
    .get(list)
    .post(create)
    .all(methodNotAllowed(["GET", "POST"]));
  router
    .route("/:id")
    .get(get)
    .patch(update)
    .delete(remove)
    .all(methodNotAllowed(["GET", "PATCH", "DELETE"]));
  return router;
}
