// Creating an API key (docs/api.md, "API keys"): the full key is returned once and
// never stored; an account has at most MAX_ACTIVE_KEYS active keys, checked under the account's lock.
// A key outlives sign-out and password changes, so a session mints one only with the password
// re-entered (sudo.ts): a stolen cookie must not turn into a lasting credential.
import {
  type CreateApiKeyBody,
  type CreatedApiKey,
  fieldErrors,
  MAX_ACTIVE_KEYS,
  missingScopes,
  type Scope,
} from "@kurz/contracts";
import { forbidden, unauthorized, validation } from "@kurz/service-kit";
import type { AuthDeps } from "../accounts/auth-deps.ts";
import { accountKeyLimits } from "../accounts/update-account-limits.ts";
import { recordCreated } from "../audit/record-audit.ts";
import { type Caller, requireRecentPassword } from "../sessions/sudo.ts";
import { activeKeyWhere, generateApiKey, toApiKeyItem } from "./api-keys.ts";

/**
 * The key gets the scopes asked for, or without any every scope the caller holds; never one the
 * caller lacks (a session's role, a key's own scopes): 403 naming them.
 */
export async function createApiKey(
  deps: Pick<AuthDeps, "prisma" | "redis" | "keyLimits" | "signinLimits">,
  caller: Caller & { accountId: string; scopes: readonly Scope[] },
  body: CreateApiKeyBody,
  clientHash: string | null,
): Promise<CreatedApiKey> {
  const { prisma } = deps;
  const { accountId } = caller;
  const scopes = body.scopes ?? [...caller.scopes];
  const beyond = missingScopes(scopes, caller.scopes);
  if (beyond.length > 0) {
    throw forbidden(`A key cannot get scopes its creator lacks: ${beyond.join(", ")}`, {
      scopes: beyond,
    });
  }
  const expiresAt = body.expires_at !== undefined ? new Date(body.expires_at) : null;
  if (expiresAt && expiresAt.getTime() <= Date.now()) {
    throw validation(
      "expires_at must be in the future",
      fieldErrors({ expires_at: "Must be in the future" }),
    );
  }
  await requireRecentPassword(deps, caller, body.current_password, clientHash);
  const { key, hash, prefix } = generateApiKey();
  const created = await prisma.$transaction(async (tx) => {
    // Serialises key creation per account so concurrent requests cannot pass the limit.
    const locked = await tx.$queryRaw<
      { id: string; rateLimitPerMinute: number | null; rateLimitPerHour: number | null }[]
    >`
      SELECT id, rate_limit_per_minute AS "rateLimitPerMinute", rate_limit_per_hour AS "rateLimitPerHour"
      FROM accounts WHERE id = ${accountId}::uuid FOR UPDATE`;
    const account = locked[0];
    if (account === undefined) throw unauthorized("This API key's account no longer exists");
    const active = await tx.apiKey.count({ where: activeKeyWhere(accountId) });
    if (active >= MAX_ACTIVE_KEYS) {
      throw forbidden(
        `Key limit reached: an account can have at most ${MAX_ACTIVE_KEYS} active API keys. Revoke a key you no longer use first.`,
      );
    }
    // The account's own limits when an operator set them (update-account-limits.ts), else the service's.
    const limits = accountKeyLimits(account, deps.keyLimits);
    const apiKey = await tx.apiKey.create({
      data: {
        accountId,
        createdByUserId: caller.userId,
        scopes,
        name: body.name,
        keyHash: hash,
        keyPrefix: prefix,
        rateLimitPerMinute: limits.perMinute,
        rateLimitPerHour: limits.perHour,
        expiresAt,
      },
    });
    await recordCreated(tx, accountId, "api_key", apiKey.id, { name: body.name, scopes });
    return apiKey;
  });
  return { ...toApiKeyItem(created), key };
}
