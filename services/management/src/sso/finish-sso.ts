// GET /api/v1/auth/oidc/callback: the provider's answer, checked, then a session as password sign-in
// issues one. The flow must be this browser's (its cookie names it), unused and unexpired, and the
// answer's state must be the flow's; the code is exchanged with the flow's PKCE verifier and the ID
// token must carry the flow's nonce. Then the person is found, or made:
// - by (issuer, subject) when they signed in through this provider before;
// - else by e-mail, which the provider must assert verified: the identity is linked to that user
//   (docs/workspaces.md, "Single sign-on"): the server's provider is trusted for every address, a workspace's
//   only for the domains it proved it controls;
// - else a new user without a password: through the server's provider with a first workspace of
//   their own (as sign-up makes one); through a workspace's, as a member of that workspace.
// Through a workspace's provider the address must be in one of its domains, and a person who is not yet
// a member joins with its default role.
import { Email } from "@kurz/contracts";
import { isUniqueViolation, type Prisma, type PrismaClient, type SsoConfig as SsoConfigRow } from "@kurz/db";
import { forbidden, type Logger, unauthorized } from "@kurz/service-kit";
import type { Redis } from "ioredis";
import * as oidc from "openid-client";
import { defaultWorkspaceName } from "../accounts/create-account.ts";
import { asUser, recordAudit } from "../audit/record-audit.ts";
import type { Mailer } from "../mail/mailer.ts";
import { newSignInMail } from "../mail/new-sign-in-mail.ts";
import { recogniseDevice } from "../sessions/known-devices.ts";
import { forgetCachedSessions, issueSession, toSession } from "../sessions/sessions.ts";
import { auditSignedIn } from "../sessions/sign-in-audit.ts";
import { takeFlow } from "./flows.ts";
import { providerOf } from "./provider-of.ts";
import { callbackUrl, SsoFailure } from "./sso-failure.ts";
import type { SsoSettings } from "./sso-settings.ts";

export interface FinishSsoDeps {
  prisma: PrismaClient;
  redis: Redis;
  sso: SsoSettings;
  baseUrl: string;
  sessionTtlMs: number;
  mailer: Mailer | null;
  logger: Logger;
}

const flowInvalid = (message: string) => new SsoFailure("flow_invalid", unauthorized(message));
const refused = (code: "email_unverified" | "domain_not_allowed" | "no_workspace", message: string) =>
  new SsoFailure(code, forbidden(message));

/** What the provider told us about the person. */
interface Asserted {
  issuer: string;
  subject: string;
  email: string;
}

export async function finishSso(
  deps: FinishSsoDeps,
  input: { handle: string | null; query: Record<string, unknown>; search: string; device: string | null },
) {
  if (input.handle === null) throw flowInvalid("This sign-in was not started in this browser; start again");
  const flow = await takeFlow(deps.redis, input.handle);
  if (!flow) throw flowInvalid("This sign-in expired or was already used; start again");
  if (input.query.state !== flow.state)
    throw flowInvalid("The provider's answer does not belong to this sign-in");
  const { config, workspace } = await providerOf(deps, flow.workspaceId);
  if (typeof input.query.error === "string") {
    throw new SsoFailure(
      "provider_error",
      unauthorized(`The provider refused the sign-in: ${input.query.error}`),
    );
  }
  const asserted = await exchange(config, new URL(`${callbackUrl(deps.baseUrl)}${input.search}`), flow);
  const { userId, joined } = await personFor(deps.prisma, asserted, workspace);
  if (joined) await forgetCachedSessions(deps.prisma, deps.redis, userId);

  if ((await deps.prisma.membership.count({ where: { userId } })) === 0) {
    throw refused("no_workspace", "You belong to no workspace; ask for an invitation");
  }
  const issued = await deps.prisma.$transaction(async (tx) => {
    const made = await issueSession(
      tx,
      userId,
      deps.sessionTtlMs,
      new Date(),
      workspace ? workspace.accountId : "server",
    );
    await auditSignedIn(tx, userId, made.row.id, "sso");
    return made;
  });
  const session = toSession(issued.row, workspace?.accountId);
  const device = await recogniseDevice(deps.prisma, userId, input.device);
  if (device.unfamiliar && deps.mailer) {
    deps.mailer
      .send(newSignInMail({ to: session.email, at: issued.row.createdAt }))
      .catch((err: unknown) => deps.logger.warn({ err: String(err) }, "new sign-in notice not sent"));
  }
  return { session, token: issued.token, device: device.token };
}

/** The code for tokens, every check of the flow made by openid-client; then the verified e-mail. */
async function exchange(
  config: oidc.Configuration,
  currentUrl: URL,
  flow: { state: string; nonce: string; verifier: string },
): Promise<Asserted> {
  let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
  try {
    tokens = await oidc.authorizationCodeGrant(config, currentUrl, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
  } catch (err) {
    const code = (err as { code?: string }).code;
    // A nonce, audience or issuer that is not the flow's: an answer made for another sign-in.
    if (code === "OAUTH_JWT_CLAIM_COMPARISON_FAILED" || code === "OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED") {
      throw flowInvalid("The provider's answer does not belong to this sign-in");
    }
    throw new SsoFailure(
      "provider_error",
      unauthorized("The provider's answer could not be accepted; start again"),
    );
  }
  const claims = tokens.claims()!;
  let { email, email_verified: verified } = claims as { email?: unknown; email_verified?: unknown };
  if (email === undefined) {
    // Providers may keep profile claims for the userinfo endpoint rather than the ID token.
    try {
      const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
      email = info.email;
      verified = info.email_verified;
    } catch {
      throw new SsoFailure("provider_error", unauthorized("The provider did not say who signed in"));
    }
  }
  const parsed = Email.safeParse(email);
  if (!parsed.success || verified !== true) {
    throw refused("email_unverified", "The provider did not confirm that this e-mail address is verified");
  }
  return { issuer: config.serverMetadata().issuer, subject: claims.sub, email: parsed.data };
}

const domainOf = (email: string) => email.slice(email.lastIndexOf("@") + 1);

/** The user the asserted identity is, made or linked as needed, and whether they joined a workspace. */
async function personFor(
  prisma: PrismaClient,
  asserted: Asserted,
  workspace: SsoConfigRow | null,
): Promise<{ userId: string; joined: boolean }> {
  if (workspace && !workspace.domains.includes(domainOf(asserted.email))) {
    throw refused(
      "domain_not_allowed",
      `Addresses at ${domainOf(asserted.email)} may not sign in to this workspace; ask for an invitation`,
    );
  }
  try {
    return await prisma.$transaction((tx) => linkOrCreate(tx, asserted, workspace));
  } catch (err) {
    // Two first sign-ins of one person at once: the other made the user or identity; this one finds it.
    if (isUniqueViolation(err)) return prisma.$transaction((tx) => linkOrCreate(tx, asserted, workspace));
    throw err;
  }
}

async function linkOrCreate(
  tx: Prisma.TransactionClient,
  { issuer, subject, email }: Asserted,
  workspace: SsoConfigRow | null,
): Promise<{ userId: string; joined: boolean }> {
  const identity = await tx.userIdentity.findUnique({ where: { issuer_subject: { issuer, subject } } });
  let userId = identity?.userId;
  if (userId === undefined) {
    const existing = await tx.user.findUnique({ where: { email }, select: { id: true } });
    if (existing) {
      userId = existing.id;
    } else if (workspace) {
      userId = (await tx.user.create({ data: { email }, select: { id: true } })).id;
    } else {
      const user = await tx.user.create({ data: { email }, select: { id: true } });
      await tx.account.create({
        data: {
          email,
          name: defaultWorkspaceName(email),
          memberships: { create: { userId: user.id, role: "owner" } },
        },
      });
      userId = user.id;
    }
    await tx.userIdentity.create({ data: { issuer, subject, userId } });
  }
  if (!workspace) return { userId, joined: false };
  const added = await tx.membership.createMany({
    data: [{ accountId: workspace.accountId, userId, role: workspace.defaultRole }],
    skipDuplicates: true,
  });
  if (added.count > 0) {
    await recordAudit(tx, {
      accountId: workspace.accountId,
      action: "member.joined",
      resourceType: "member",
      resourceId: userId,
      details: { role: workspace.defaultRole, via: "sso" },
      actor: asUser(userId),
    });
  }
  return { userId, joined: added.count > 0 };
}
