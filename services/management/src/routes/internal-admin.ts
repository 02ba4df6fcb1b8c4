// The operators' routes (contracts' ADMIN_ROUTES), behind requireAdmin (app.ts): the admin credential
// only. `./kurz accounts:update` runs the same use case from the command line.
import { ADMIN_ROUTES } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { serviceUnavailable, v1Success, validation } from "@kurz/service-kit";
import { Router } from "express";
import type { Redis } from "ioredis";
import { updateAccountLimits } from "../accounts/update-account-limits.ts";
import type { KeyLimits } from "../keys/api-keys.ts";

export function internalAdminRouter(deps: {
  prisma: PrismaClient;
  redis: Redis;
  keyLimits: KeyLimits;
}): Router {
  const router = Router();
  const update = ADMIN_ROUTES.updateAccount;

  router.patch(update.path.slice("/internal/admin".length), async (req, res) => {
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
  });

  return router;
}
