// /api/v1/links: the link resource (SPEC 4.1).
import { CreateLinkBody } from "@kurz/contracts";
import type { Link, PrismaClient } from "@kurz/db";
import { ApiError } from "@kurz/service-kit";
import { type Request, type Response, Router } from "express";
import { toLinkJson } from "../link-json.ts";
import { enqueueLinkEvent, linkEvent } from "../outbox.ts";
import { hashPassword } from "../passwords.ts";
import type { RedirectRecords } from "../redirect-records.ts";
import { freeShortCode } from "../short-codes.ts";

export interface LinksDeps {
  prisma: PrismaClient;
  records: RedirectRecords;
  baseUrl: string;
  onEventsWritten: () => void;
}

const isUniqueViolation = (err: unknown) => (err as { code?: string } | null)?.code === "P2002";

function linkLimitError(limit: number): ApiError {
  return new ApiError(
    403,
    "FORBIDDEN",
    `Link limit reached: this account can have at most ${limit} links. Delete links you no longer need or upgrade your plan.`,
  );
}

export function linksRouter(deps: LinksDeps): Router {
  const router = Router();
  const { prisma } = deps;

  router.post("/", async (req: Request, res: Response) => {
    const { accountId } = res.locals.identity as { accountId: string };
    const body = CreateLinkBody.parse(req.body);
    const passwordHash = body.password !== undefined ? await hashPassword(body.password) : null;
    const title = body.title ?? new URL(body.url).hostname;

    const create = () =>
      prisma.$transaction(async (tx) => {
        // Serialises creates per account so concurrent requests cannot pass the link limit.
        const [account] = await tx.$queryRaw<{ link_limit: number; default_expiry_hours: number | null }[]>`
          SELECT link_limit, default_expiry_hours FROM accounts WHERE id = ${accountId}::uuid FOR UPDATE`;
        if (!account) throw new ApiError(401, "UNAUTHORIZED", "Unknown account");
        const count = await tx.link.count({ where: { accountId } });
        if (count >= account.link_limit) throw linkLimitError(account.link_limit);

        const expiresAt =
          body.expires_at !== undefined
            ? new Date(body.expires_at)
            : account.default_expiry_hours !== null
              ? new Date(Date.now() + account.default_expiry_hours * 3_600_000)
              : null;
        const link = await tx.link.create({
          data: {
            accountId,
            shortCode: body.custom_alias ?? (await freeShortCode(tx)),
            originalUrl: body.url,
            title,
            passwordHash,
            expiresAt,
          },
        });
        await enqueueLinkEvent(tx, linkEvent("link.created", link));
        return link;
      });

    let link: Link;
    try {
      link = await create();
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      if (body.custom_alias !== undefined) {
        throw new ApiError(409, "CONFLICT", `The alias '${body.custom_alias}' is already taken`);
      }
      link = await create(); // a generated code raced with another insert; a fresh code will do
    }
    deps.onEventsWritten();
    await deps.records.put(link);
    res.status(201).json({ success: true, data: toLinkJson(link, deps.baseUrl) });
  });

  return router;
}
