// The operators' routes (contracts' INTERNAL_ROUTES that take the admin credential only, which no
// service holds; mountInternal checks it). `./kurz accounts:update` runs the same use case from the
// command line.
import { INTERNAL_ROUTES } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import {
  type InternalRoute,
  internalRoute,
  serviceUnavailable,
  v1Success,
  validation,
} from "@kurz/service-kit";
import type { Redis } from "ioredis";
import { updateAccountLimits } from "../accounts/update-account-limits.ts";
import type { KeyLimits } from "../keys/api-keys.ts";

export function internalAdminRoutes(deps: {
  prisma: PrismaClient;
  redis: Redis;
  keyLimits: KeyLimits;
}): InternalRoute[] {
  const update = INTERNAL_ROUTES.updateAccountLimits;
  return [
    internalRoute(update, async (req, res) => {
      const parsed = update.body.safeParse(req.body);
      if (!parsed.success) throw validation(parsed.error);
      const { limits, cachesUpdated } = await updateAccountLimits(deps, parsed.data);
      // Saved, but a gateway could count against the old limits until its cached key records expire;
      // the change is idempotent, so repeating it retries the rewrite.
      if (!cachesUpdated) {
        throw serviceUnavailable(
          "The limits are saved but the gateway's key caches were not updated; repeat the request",
        );
      }
      res.json(update.response.parse(v1Success(limits)));
    }),
  ];
}
