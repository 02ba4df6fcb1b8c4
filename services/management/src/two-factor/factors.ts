// What the two-factor use cases share: which second factors a user has, the secret box and relying
// party they are checked with, and dropping the caches that carry "has a second factor" when it changes.
import { apiKeyCacheKey, type TwoFactorMethod } from "@kurz/contracts";
import type { Prisma, PrismaClient } from "@kurz/db";
import { serviceUnavailable } from "@kurz/service-kit";
import type { Redis } from "ioredis";
import type { AuthDeps } from "../accounts/auth-deps.ts";
import { asUser, recordUserAudit } from "../audit/record-audit.ts";
import { forgetCachedSessions } from "../sessions/sessions.ts";
import type { SecretBox } from "../webhooks/secrets.ts";

/**
 * The WebAuthn relying party: its id is PUBLIC_BASE_URL's host name, and assertions may come from the
 * public origin under any of its names (PUBLIC_HOSTS). Browsers refuse an IP address as the id, so an
 * origin on an address (a development machine's 127.0.0.1) uses its first named host (localhost)
 * instead; passkeys then work from that name.
 */
export interface RelyingParty {
  id: string;
  name: string;
  origins: string[];
}

const isIpAddress = (host: string) => /^[\d.]+$/.test(host) || host.startsWith("[");

export function relyingPartyFrom(baseUrl: string, publicHosts: readonly string[] = []): RelyingParty {
  const url = new URL(baseUrl);
  const hosts = Array.isArray(publicHosts) ? publicHosts : [];
  const port = url.port ? `:${url.port}` : "";
  const origins = [url.origin, ...hosts.map((host) => `${url.protocol}//${host}${port}`)];
  const id = isIpAddress(url.hostname) ? (hosts.find((h) => !isIpAddress(h)) ?? url.hostname) : url.hostname;
  return { id, name: "Kurz", origins: [...new Set(origins)] };
}

export interface TwoFactorDeps extends AuthDeps {
  /** Seals TOTP secrets (SecretBox with the purpose "totp"). */
  totpSecrets: SecretBox;
  relyingParty: RelyingParty;
}

export interface Factors {
  totp: boolean;
  passkeys: number;
  recoveryCodesLeft: number;
}

export async function factorsOf(prisma: PrismaClient, userId: string): Promise<Factors> {
  const [totp, passkeys, recoveryCodesLeft] = await Promise.all([
    prisma.userTotp.findUnique({ where: { userId }, select: { confirmedAt: true } }),
    prisma.passkey.count({ where: { userId } }),
    prisma.recoveryCode.count({ where: { userId, usedAt: null } }),
  ]);
  return { totp: totp?.confirmedAt != null, passkeys, recoveryCodesLeft };
}

/** A password alone no longer signs the user in. */
export const hasSecondFactor = (f: Factors) => f.totp || f.passkeys > 0;

export function methodsOf(f: Factors): TwoFactorMethod[] {
  const methods: TwoFactorMethod[] = [];
  if (f.totp) methods.push("totp");
  if (f.passkeys > 0) methods.push("passkey");
  if (f.recoveryCodesLeft > 0) methods.push("recovery_code");
  return methods;
}

/**
 * After a factor was added or removed: the gateway's cached sessions and key records of the user say
 * whether a workspace that requires two-factor sign-in lets them in, so they are read again.
 */
export async function factorsChanged(
  deps: { prisma: PrismaClient; redis: Redis },
  userId: string,
): Promise<void> {
  await forgetCachedSessions(deps.prisma, deps.redis, userId);
  const keys = await deps.prisma.apiKey.findMany({
    where: { createdByUserId: userId, revokedAt: null },
    select: { keyHash: true },
  });
  await forgetKeyRecords(deps.redis, keys);
}

export async function forgetKeyRecords(redis: Redis, keys: { keyHash: string }[]): Promise<void> {
  if (keys.length === 0) return;
  try {
    await redis.del(...keys.map((k) => apiKeyCacheKey(k.keyHash)));
  } catch {
    throw serviceUnavailable("The change is saved, but API keys may see it only within a minute");
  }
}

/**
 * Whether a key's requests are held back by its workspace's two-factor requirement: the workspace
 * requires it and the key's creator has no second factor (or is gone, with nobody to have one) and
 * no identity at the workspace's own single sign-on provider.
 */
export async function keyTwoFactorMissing(
  prisma: PrismaClient,
  key: { accountId: string; createdByUserId: string | null },
): Promise<boolean> {
  const account = await prisma.account.findUnique({
    where: { id: key.accountId },
    select: { requireTwoFactor: true },
  });
  if (!account?.requireTwoFactor) return false;
  if (key.createdByUserId === null) return true;
  if (hasSecondFactor(await factorsOf(prisma, key.createdByUserId))) return false;
  // Someone who signs in through the workspace's own provider has the provider's second factor.
  const sso = await prisma.ssoConfig.findUnique({
    where: { accountId: key.accountId },
    select: { issuer: true },
  });
  if (!sso) return true;
  const linked = await prisma.userIdentity.count({
    where: { userId: key.createdByUserId, issuer: sso.issuer },
  });
  return linked === 0;
}

/**
 * A change the user made to their own second factors (`two_factor.<change>`), logged in each of their
 * workspaces; about the user unless `resource` names the passkey.
 */
export function recordTwoFactorChange(
  tx: Pick<Prisma.TransactionClient, "$executeRaw">,
  userId: string,
  change: string,
  resource: { type: "user" | "passkey"; id: string; details?: Record<string, unknown> } = {
    type: "user",
    id: userId,
  },
): Promise<void> {
  return recordUserAudit(tx, userId, {
    action: `two_factor.${change}`,
    actor: asUser(userId),
    resourceType: resource.type,
    resourceId: resource.id,
    details: resource.details,
  });
}
