// An operator changes an account's plan status, link limit and its keys' rate limits: the one use case
// behind `./kurz accounts:update` and `PATCH /internal/admin/accounts` (contracts' admin.ts).
import {
  type AccountLimits,
  apiKeyCacheKey,
  fieldErrors,
  type UpdateAccountLimitsBody,
} from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { notFound, validation } from "@kurz/service-kit";
import type { Redis } from "ioredis";
import { changedFields, recordAudit } from "../audit/record-audit.ts";
import { type KeyLimits, toKeyRecord } from "../keys/api-keys.ts";
import { keyTwoFactorMissing } from "../two-factor/factors.ts";
import { findAccountByEmail } from "./account-by-email.ts";

// As long as a revoked key's record (revoke-api-key.ts): the record written is the current one, and
// any later change of the key writes it again.
const KEY_RECORD_CACHE_SECONDS = 3600;

/** The rate limits an account's keys get: the operator's, else the service's defaults. */
export const accountKeyLimits = (
  account: { rateLimitPerMinute: number | null; rateLimitPerHour: number | null },
  defaults: KeyLimits,
): KeyLimits => ({
  perMinute: account.rateLimitPerMinute ?? defaults.perMinute,
  perHour: account.rateLimitPerHour ?? defaults.perHour,
});

export interface AccountLimitsResult {
  limits: AccountLimits;
  /** False when the gateway's cached key records could not be rewritten (they expire on their own). */
  cachesUpdated: boolean;
}

/**
 * Writes the given limits. New rate limits are stored on the account (for keys created later) and on
 * every key it has, in one transaction; then the gateway's cached copies of those keys are replaced,
 * so the next request is counted against the new limits. A lowered link limit is taken back from
 * the unused quota leases by the database (trigger link_limit_lowered).
 */
export async function updateAccountLimits(
  deps: { prisma: PrismaClient; redis: Redis | null; keyLimits: KeyLimits },
  body: UpdateAccountLimitsBody,
): Promise<AccountLimitsResult> {
  const name = body.account_id ?? body.email?.trim().toLowerCase() ?? "";
  const { account, keysUpdated, rateLimits } = await deps.prisma.$transaction(async (tx) => {
    const found = await findAccountByEmail(tx, name);
    if (!found) throw notFound(body.account_id ? `No account ${name}` : `No account with e-mail ${name}`);
    const current = accountKeyLimits(found, deps.keyLimits);
    const next = {
      perMinute: body.rate_limit_per_minute ?? current.perMinute,
      perHour: body.rate_limit_per_hour ?? current.perHour,
    };
    if (next.perMinute > next.perHour) {
      throw validation(
        `The hourly rate limit (${next.perHour}) must be at least the per-minute one (${next.perMinute})`,
        fieldErrors({ rate_limit_per_hour: "Must be at least the per-minute rate limit" }),
      );
    }
    const changesRates = body.rate_limit_per_minute !== undefined || body.rate_limit_per_hour !== undefined;
    const updated = await tx.account.update({
      where: { id: found.id },
      data: {
        ...(body.link_limit !== undefined ? { linkLimit: body.link_limit } : {}),
        ...(body.status !== undefined ? { plan: body.status } : {}),
        // Both are stored once either is set, so the account's pair is the one its keys carry.
        ...(changesRates ? { rateLimitPerMinute: next.perMinute, rateLimitPerHour: next.perHour } : {}),
      },
    });
    const keys = changesRates
      ? await tx.apiKey.updateMany({
          where: { accountId: found.id },
          data: { rateLimitPerMinute: next.perMinute, rateLimitPerHour: next.perHour },
        })
      : { count: 0 };
    await recordAudit(tx, {
      accountId: found.id,
      action: "workspace.limits_changed",
      resourceType: "workspace",
      resourceId: found.id,
      details: changedFields({ ...body, account_id: undefined, email: undefined }),
    });
    return { account: updated, keysUpdated: keys.count, rateLimits: next };
  });
  const cachesUpdated = keysUpdated === 0 || (await rewriteKeyRecords(deps, account.id));
  return {
    limits: {
      id: account.id,
      email: account.email,
      status: account.plan,
      link_limit: account.linkLimit,
      rate_limit_per_minute: rateLimits.perMinute,
      rate_limit_per_hour: rateLimits.perHour,
      keys_updated: keysUpdated,
    },
    cachesUpdated,
  };
}

/**
 * Replaces the gateway's cached records of the account's keys with their stored ones. SET without NX:
 * a gateway that read a key just before the change writes its stale copy with NX, which then loses.
 */
async function rewriteKeyRecords(
  deps: { prisma: PrismaClient; redis: Redis | null },
  accountId: string,
): Promise<boolean> {
  if (deps.redis === null) return false;
  const keys = await deps.prisma.apiKey.findMany({ where: { accountId } });
  const pipeline = deps.redis.multi();
  const records = await Promise.all(
    keys.map(async (key) => ({
      ...toKeyRecord(key),
      two_factor_missing: await keyTwoFactorMissing(deps.prisma, key),
    })),
  );
  for (const [i, key] of keys.entries()) {
    pipeline.set(apiKeyCacheKey(key.keyHash), JSON.stringify(records[i]), "EX", KEY_RECORD_CACHE_SECONDS);
  }
  try {
    const results = await pipeline.exec();
    return results?.every(([err]) => err === null) ?? false;
  } catch {
    return false;
  }
}
