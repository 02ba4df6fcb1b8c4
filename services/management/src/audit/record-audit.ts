// The audit log's one writer (docs/workspaces.md, "Audit log"). A use case calls recordAudit with its
// own transaction, so the change and its event commit together or not at all: a process that dies
// between the two leaves neither. The actor, its address prefix and user-agent family come from the
// request being answered (service-kit's requestCaller) unless the use case names them (a sign-in:
// the route is anonymous, but the person is known once the password matches).
import type { Prisma } from "@kurz/db";
import { requestCaller } from "@kurz/service-kit";

export type ActorType = "user" | "key" | "system";

export interface AuditActor {
  type: ActorType;
  /** The user's or key's id; null for the system. */
  id: string | null;
  /** The e-mail or key name; left empty, the database reads the current one in the same statement. */
  label?: string;
  ipPrefix: string | null;
  agent: string | null;
}

export interface AuditEntry {
  accountId: string;
  /** `<resource>.<verb>`: link.created, member.role_changed, session.sign_in_failed, ... */
  action: string;
  resourceType: string;
  resourceId?: string | number | bigint | null;
  /** Small and never secret: the names of the fields a change set, a role, a count. */
  details?: Record<string, unknown>;
  /** Default: the request's caller (auditActor()). */
  actor?: AuditActor;
}

/** What one entry is in the database's terms: the JSON each writer (this file, kurz_create_links) takes. */
export interface AuditRow {
  account_id: string;
  actor_type: ActorType;
  actor_id: string | null;
  actor_label: string;
  action: string;
  resource_type: string;
  resource_id: string | null;
  ip_prefix: string | null;
  user_agent_family: string | null;
  details: Record<string, unknown>;
}

/**
 * Who is acting now: the request's key, else its user, else the system (a CLI, a worker); `as` names
 * the person when the route cannot (sign-in, an accepted invitation), keeping the request's origin.
 */
export function auditActor(as?: { type: ActorType; id: string | null; label?: string }): AuditActor {
  const caller = requestCaller();
  const origin = { ipPrefix: caller?.ipPrefix ?? null, agent: caller?.agent ?? null };
  if (as) return { ...as, ...origin };
  if (caller?.keyId) return { type: "key", id: caller.keyId, ...origin };
  if (caller?.userId) return { type: "user", id: caller.userId, ...origin };
  return { type: "system", id: null, ...origin };
}

export function auditRow(entry: AuditEntry): AuditRow {
  const actor = entry.actor ?? auditActor();
  return {
    account_id: entry.accountId,
    actor_type: actor.type,
    actor_id: actor.id,
    actor_label: actor.label ?? "",
    action: entry.action,
    resource_type: entry.resourceType,
    resource_id: entry.resourceId == null ? null : String(entry.resourceId),
    ip_prefix: actor.ipPrefix,
    user_agent_family: actor.agent,
    details: entry.details ?? {},
  };
}

/** A transaction (or, for an event that changes nothing else, the client itself). */
type Writer = Pick<Prisma.TransactionClient, "$executeRaw">;

/**
 * Writes `entries` in one statement on `tx`. An actor's label not given is read in that statement
 * (the key's name, the user's e-mail), so naming the actor costs no round trip of its own.
 */
export async function recordAudit(tx: Writer, entries: AuditEntry | readonly AuditEntry[]): Promise<void> {
  const list = Array.isArray(entries) ? entries : [entries as AuditEntry];
  if (list.length === 0) return;
  await tx.$executeRaw`SELECT kurz_record_audit(${JSON.stringify(list.map(auditRow))}::jsonb)`;
}

/** The names of the fields a change sets (its body's members that are not undefined), for `details`. */
export function changedFields(body: object): { fields: string[] } {
  return { fields: Object.entries(body).flatMap(([name, value]) => (value === undefined ? [] : [name])) };
}

/**
 * Writes `entry` once for each workspace the user is a member of (a sign-in, a password change: the
 * person's events, which each of their workspaces' admins see), in one statement on `tx`.
 */
export async function recordUserAudit(
  tx: Writer,
  userId: string,
  entry: Omit<AuditEntry, "accountId">,
): Promise<void> {
  const row = JSON.stringify(auditRow({ ...entry, accountId: userId }));
  await tx.$executeRaw`
    SELECT kurz_record_audit(COALESCE(jsonb_agg(${row}::jsonb || jsonb_build_object('account_id', m.account_id)), '[]'))
    FROM memberships m WHERE m.user_id = ${userId}::uuid`;
}

/** The user as the actor (a route without a caller: sign-in, a reset link, an accepted invitation). */
export const asUser = (userId: string): AuditActor => auditActor({ type: "user", id: userId });

/**
 * A link put in (`<group>.link_added`) or taken out of (`<group>.link_removed`) a campaign or a channel,
 * with the link's id in `details`: the one shape every membership change is logged in.
 */
export async function recordLinkMembership(
  tx: Writer,
  accountId: string,
  group: { type: "campaign" | "channel"; id: number },
  change: "link_added" | "link_removed",
  linkId: string,
): Promise<void> {
  await recordAudit(tx, {
    accountId,
    action: `${group.type}.${change}`,
    resourceType: group.type,
    resourceId: group.id,
    details: { link_id: linkId },
  });
}

/** A resource made (`<resourceType>.created`), with what its entry tells beyond that in `details`. */
export async function recordCreated(
  tx: Writer,
  accountId: string,
  resourceType: string,
  resourceId: string | number | bigint,
  details?: Record<string, unknown>,
): Promise<void> {
  await recordAudit(tx, { accountId, action: `${resourceType}.created`, resourceType, resourceId, details });
}
