// GET /api/v1/account and /api/v1/account/usage (SPEC 2.3, 2.4); the reads are in account-service.ts.
import { ROUTES } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { type MountedRoute, route, v1Success } from "@kurz/service-kit";
import type { Redis } from "ioredis";
import { accountOverview, keyUsage } from "../account-service.ts";

export function accountRoutes(deps: { prisma: PrismaClient; redis: Redis }): MountedRoute[] {
  return [
    route(ROUTES.getAccount, async ({ identity: { accountId } }) =>
      v1Success(await accountOverview(deps.prisma, accountId)),
    ),
    route(ROUTES.getUsage, async ({ identity: { accountId, keyId } }) =>
      v1Success(await keyUsage(deps, accountId, keyId)),
    ),
  ];
}
