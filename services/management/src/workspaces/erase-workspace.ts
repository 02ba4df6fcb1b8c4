// Erasing a workspace with everything in it, for a person leaving for good (accounts/delete-user.ts):
// unlike DELETE /workspaces/:id, which takes only an empty one, this removes what the workspace holds
// from every store. Postgres in one transaction with the events that carry it further; after the
// commit, the redirect's records (Redis) and the gateway's cached keys. Analytics (ClickHouse) hears
// `account.deleted` from the outbox and deletes the workspace's rows (analytics' ingest/account-deletion.ts).
import { randomUUID } from "node:crypto";
import {
  type AccountDeletedEvent,
  API_KEY_USAGE_HASH,
  apiKeyCacheKey,
  type KeyRecord,
  NO_WORKSPACE,
  rateLimitKey,
  TOPICS,
} from "@kurz/contracts";
import type { ApiKey, Prisma } from "@kurz/db";
import type { Redis } from "ioredis";
import { afterLinksDeleted, type DeletedLinks, deleteLinksInTx } from "../links/delete-links.ts";
import type { LinkWriterDeps } from "../links/link-writer.ts";
import type { DomainAndRotatorRecords } from "../projections/domain-and-rotator-records.ts";
import type { OverlayRecords } from "../projections/overlay-records.ts";
import { keepAWorkspace } from "./change-membership.ts";
import { lockWorkspace } from "./workspaces.ts";

type Tx = Prisma.TransactionClient;

export type EraseDeps = LinkWriterDeps & {
  redis: Redis;
  domainAndRotatorRecords: Pick<DomainAndRotatorRecords, "removeDomain" | "syncRotators" | "syncSlug">;
  overlayRecords: Pick<OverlayRecords, "remove">;
};

/** What went with a workspace, for the work after the commit. */
export interface ErasedWorkspace {
  accountId: string;
  links: DeletedLinks;
  domains: { id: number; host: string; version: bigint }[];
  overlays: { id: number; version: bigint }[];
  slugs: string[];
  keys: ApiKey[];
  /** Members besides `except`, whose cached sessions still list the workspace. */
  members: string[];
}

/**
 * Deletes the workspace and everything in it inside the caller's transaction. Each link leaves as a
 * single delete does (`link.deleted`, its code retired), then the retired codes are handed to
 * NO_WORKSPACE: they stay reserved from everyone for the grace, naming no workspace. Members other
 * than `except` who are left without a workspace get an empty one of their own.
 */
export async function eraseWorkspaceInTx(
  tx: Tx,
  accountId: string,
  except: string | null,
): Promise<ErasedWorkspace> {
  await lockWorkspace(tx, accountId);
  const linkIds = await tx.link.findMany({ where: { accountId }, select: { id: true } });
  const links = await deleteLinksInTx(
    tx,
    accountId,
    linkIds.map((l) => l.id),
  );
  // Tombstone versions drawn under the delete's lock, after each row's last (decision 0052).
  const overlays = await tx.$queryRaw<{ id: number; version: bigint }[]>`
    DELETE FROM overlays WHERE account_id = ${accountId}::uuid
    RETURNING id, kurz_new_record_version() AS version`;
  const domains = await tx.$queryRaw<{ id: number; host: string; version: bigint }[]>`
    DELETE FROM domains WHERE account_id = ${accountId}::uuid
    RETURNING id, host, kurz_new_record_version() AS version`;
  const campaigns = await tx.campaign.findMany({ where: { accountId }, select: { slug: true } });
  const keys = await tx.apiKey.findMany({ where: { accountId } });
  const members = await tx.membership.findMany({
    where: { accountId, userId: except === null ? undefined : { not: except } },
    select: { userId: true, user: { select: { email: true } } },
  });
  await announceWorkspaceGone(tx, accountId);
  // The rest (campaigns, channels, webhooks and their deliveries, imports, keys, memberships,
  // invitations, the link count) goes by the foreign keys' cascade.
  await tx.account.delete({ where: { id: accountId } });
  for (const m of members) await keepAWorkspace(tx, m.userId, m.user.email);
  return {
    accountId,
    links,
    domains,
    overlays,
    slugs: campaigns.flatMap((c) => (c.slug ? [c.slug] : [])),
    keys,
    members: members.map((m) => m.userId),
  };
}

/**
 * What every deletion of a workspace does before its row goes (here, and DELETE /workspaces/:id for an
 * empty one): its retired codes are handed to NO_WORKSPACE, reserved from everyone for the grace and
 * naming no one; and `account.deleted` goes in the outbox, after the links' events, for analytics to
 * delete the workspace's rows (its deleted links' dimension rows, when nothing else is left).
 */
export async function announceWorkspaceGone(tx: Tx, accountId: string): Promise<void> {
  await tx.$executeRaw`
    UPDATE retired_codes SET account_id = ${NO_WORKSPACE}::uuid WHERE account_id = ${accountId}::uuid`;
  const campaigns = await tx.campaign.findMany({ where: { accountId }, select: { id: true } });
  const event: AccountDeletedEvent = {
    v: 1,
    type: "account.deleted",
    account_id: accountId,
    // Read after every link event's time, so analytics' tombstones outrank them.
    occurred_at: new Date().toISOString(),
    campaign_ids: campaigns.map((c) => c.id),
  };
  await tx.outboxEvent.create({
    data: { topic: TOPICS.links, key: `account:${accountId}`, payload: event as object },
  });
}

/** After the commit: the events go out, the redirect's records become tombstones, the keys die. */
export async function afterWorkspaceErased(
  deps: EraseDeps,
  erased: ErasedWorkspace,
  now: Date,
): Promise<void> {
  deps.onEventsWritten();
  await afterLinksDeleted(deps, erased.links);
  for (const d of erased.domains) await deps.domainAndRotatorRecords.removeDomain(d.host, d);
  for (const o of erased.overlays) await deps.overlayRecords.remove(o.id, o.version);
  // Read again, not tombstoned blindly: another workspace may have taken the slug meanwhile.
  for (const slug of erased.slugs) await deps.domainAndRotatorRecords.syncSlug(deps.prisma, slug);
  await forgetKeys(deps.redis, erased.keys, now);
}

/**
 * Replaces each key's cached record with a revoked one naming nobody (a gateway that read the key just
 * before writes its stale copy with SET NX, which then loses; see revoke-api-key.ts), and drops its
 * unflushed use and its rate-limit counters.
 */
export async function forgetKeys(redis: Redis, keys: readonly ApiKey[], now: Date): Promise<void> {
  if (keys.length === 0) return;
  const nowSec = Math.floor(now.getTime() / 1000);
  const multi = redis.multi();
  for (const key of keys) {
    const record: KeyRecord = {
      key_id: randomUUID(),
      account_id: NO_WORKSPACE,
      user_id: null,
      scopes: [],
      name: "",
      rate_limit_per_minute: 1,
      rate_limit_per_hour: 1,
      expires_at: null,
      revoked: true,
    };
    multi.set(apiKeyCacheKey(key.keyHash), JSON.stringify(record), "EX", REVOKED_KEY_SECONDS);
    multi.hdel(API_KEY_USAGE_HASH, key.id);
    multi.del(...rateLimitKeys([`v1:${key.id}`, `legacy:${key.id}`], nowSec));
  }
  await multi.exec();
}

/** As long as revoke-api-key.ts keeps a revoked key's record: longer than any gateway cache entry. */
const REVOKED_KEY_SECONDS = 3600;

/** The live windows' counters of `subjects` (the gateway's rate limits: a minute and an hour). */
export function rateLimitKeys(subjects: readonly string[], nowSec: number): string[] {
  const windows = [
    { name: "1m", seconds: 60 },
    { name: "1h", seconds: 3600 },
  ];
  return subjects.flatMap((subject) =>
    windows.flatMap((w) => [rateLimitKey(subject, w, nowSec), rateLimitKey(subject, w, nowSec - w.seconds)]),
  );
}
