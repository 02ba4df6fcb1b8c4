// A public stats page's status (web-app.ts): management's answer for the link's public analytics, the
// same one analytics asks, charged to the client's public budget like the API call the page then makes.
import { INTERNAL_ROUTES } from "@kurz/contracts";
import { createInternalClient, internalHeaders, isApiError } from "@kurz/service-kit";
import { type Budgets, PUBLIC_RATE_LIMIT_PER_MINUTE } from "./budgets.ts";
import type { ClientHash } from "./client-hash.ts";
import type { GatewayConfig } from "./config.ts";
import type { StatsPageStatus } from "./web-app.ts";

export function createStatsPageStatus(
  config: Pick<GatewayConfig, "MANAGEMENT_URL" | "INTERNAL_TOKEN">,
  budgets: Pick<Budgets, "enforceLimits">,
  clientHash: ClientHash,
): StatsPageStatus {
  const management = createInternalClient(
    config.MANAGEMENT_URL,
    internalHeaders(config.INTERNAL_TOKEN, "gateway"),
  );
  return async (req, res, shortCode) => {
    try {
      await budgets.enforceLimits(res, `public:${clientHash(req)}`, [
        { name: "1m", seconds: 60, limit: PUBLIC_RATE_LIMIT_PER_MINUTE },
      ]);
    } catch (err) {
      if (isApiError(err) && err.status === 429) return 429;
      throw err;
    }
    const answer = await management.call(
      INTERNAL_ROUTES.getPublicAnalyticsLink,
      { short_code: shortCode },
      { timeoutMs: 2_000 },
    );
    await answer.body?.cancel();
    return answer.status === 404 ? 404 : 200;
  };
}
