// Cross-tenant attempts on every id and code route of both APIs (docs/security.md, "Threat model"):
// the attacker calls each route that names a resource with the victim's id or code, and gets exactly
// the answer a missing resource gets (404 in the route's envelope), and the victim's rows are
// unchanged. The routes come from contracts' API_ROUTES, so a new route that names a resource fails
// this file until its attack is written here.
import { API_ROUTES } from "@kurz/contracts";
import { beforeAll, describe, expect, it } from "vitest";
import {
  type api,
  attackerAndVictim,
  type Caller,
  callAs,
  expectLegacyError,
  expectV1Error,
  type RawResponse,
  raw,
  registerOwner,
  useAttackStack,
} from "./attack.ts";

type Call = ReturnType<typeof api>;

interface Tenant {
  accountId: string;
  call: Call;
  link: { id: string; short_code: string };
  keyId: string;
  domainId: number;
  campaignId: number;
  channelId: number;
  importId: string;
  webhookId: string;
  overlayId: number;
  userId: string;
  invitationId: string;
  utmTemplateId: number;
  /** The invitation's stored SHA-256, spelled as a token would be (43 base64url characters). */
  invitationHashAsToken: string;
}

const bed = useAttackStack({}, { inProcess: true });
let attacker: Tenant;
let victim: Tenant;
/** The attacker signed in, for the routes of a user's own (passkeys), which take a session only. */
let attackerSession: Caller & { password: string };
/** A passkey of the victim's user (made directly: only its id matters here). */
const VICTIM_PASSKEY = "dmljdGltLXBhc3NrZXktaWQ";

async function ok(res: Promise<RawResponse>): Promise<RawResponse> {
  const r = await res;
  expect(r.status, r.text).toBeLessThan(300);
  return r;
}

/** A tenant with one of each resource: a link, a second key, a domain, a campaign and a channel, linked. */
async function furnish(accountId: string, call: Call, tag: string): Promise<Tenant> {
  const link = (await ok(call("POST", "/api/v1/links", { url: `https://${tag}.example/`, title: tag }))).body
    .data;
  const keyId = (await ok(call("POST", "/api/v1/account/keys", { name: `${tag} spare` }))).body.data.id;
  const domainId = (
    await ok(call("POST", "/api/domain/add", { domain: `https://go-${tag}-${process.pid}.example.test` }))
  ).body.id;
  const campaignId = (await ok(call("POST", "/api/campaign/add", { name: `${tag} campaign`, public: true })))
    .body.id;
  const channelId = (await ok(call("POST", "/api/channel/add", { name: `${tag} channel` }))).body.id;
  await ok(call("POST", `/api/campaign/${campaignId}/assign/${link.id}`));
  await ok(call("POST", `/api/channel/${channelId}/assign/${link.id}`));
  // An import whose one row is refused: it creates nothing, so it cannot change the rows compared below.
  const importId = (
    await ok(call("POST", "/api/v1/imports", `url\nnot-a-url-${tag}\n`, { "content-type": "text/csv" }))
  ).body.data.id;
  // A webhook endpoint on a literal public address (no DNS at create) for an event nothing here causes,
  // so no delivery changes its row while the attempts run.
  const webhookId = (
    await ok(call("POST", "/api/v1/webhooks", { url: "http://93.184.216.34/hook", events: ["link.deleted"] }))
  ).body.data.id;
  const overlayId = (await ok(call("POST", "/api/overlay/add", { type: "contact", name: `${tag} overlay` })))
    .body.id;
  const { userId } = await bed.prisma.membership.findFirstOrThrow({ where: { accountId } });
  const invitationId = (
    await ok(
      call("POST", `/api/v1/workspaces/${accountId}/invitations`, {
        email: `${tag}-invitee-${process.pid}@example.com`,
        role: "member",
      }),
    )
  ).body.data.id;
  const utmTemplateId = (
    await ok(call("POST", "/api/v1/utm-templates", { name: `${tag} template`, params: { utm_source: tag } }))
  ).body.data.id;
  const { tokenHash } = await bed.prisma.invitation.findUniqueOrThrow({ where: { id: invitationId } });
  const invitationHashAsToken = Buffer.from(tokenHash, "hex").toString("base64url");
  return {
    accountId,
    call,
    link,
    keyId,
    domainId,
    campaignId,
    channelId,
    importId,
    webhookId,
    overlayId,
    userId,
    invitationId,
    utmTemplateId,
    invitationHashAsToken,
  };
}

/** Every row the victim owns, as it stands (last use of keys aside: using a key is not a change). */
async function rowsOf(accountId: string) {
  const where = { accountId };
  const queries = {
    account: bed.prisma.account.findUniqueOrThrow({ where: { id: accountId } }),
    links: bed.prisma.link.findMany({ where, orderBy: { id: "asc" } }),
    keys: bed.prisma.apiKey.findMany({ where, orderBy: { id: "asc" }, omit: { lastUsedAt: true } }),
    domains: bed.prisma.domain.findMany({ where, orderBy: { id: "asc" } }),
    campaigns: bed.prisma.campaign.findMany({ where, orderBy: { id: "asc" }, include: { links: true } }),
    channels: bed.prisma.channel.findMany({ where, orderBy: { id: "asc" }, include: { links: true } }),
    webhooks: bed.prisma.webhookEndpoint.findMany({ where, orderBy: { id: "asc" } }),
    overlays: bed.prisma.overlay.findMany({ where, orderBy: { id: "asc" }, include: { submissions: true } }),
    members: bed.prisma.membership.findMany({ where, orderBy: { userId: "asc" } }),
    invitations: bed.prisma.invitation.findMany({ where, orderBy: { id: "asc" } }),
    passkeys: bed.prisma.passkey.findMany({
      where: { user: { memberships: { some: { accountId } } } },
      orderBy: { id: "asc" },
    }),
    utmTemplates: bed.prisma.utmTemplate.findMany({ where, orderBy: { id: "asc" } }),
  };
  // Read at once, named as above (in that order).
  const rows = Object.fromEntries(
    await Promise.all(Object.entries(queries).map(async ([name, query]) => [name, await query] as const)),
  );
  return JSON.stringify(rows, (_k, v) => (typeof v === "bigint" ? String(v) : v));
}

/** A password strong enough to create a user, so that only the token decides the answer. */
const ACCEPT_PASSWORD = "attacker-chosen passphrase 7 horses";

interface Attempt {
  path: string;
  body?: unknown;
  /** Made with the attacker's session rather than their key. */
  session?: boolean;
}

/**
 * The attacker's attempts for each route that names a resource: the victim's id or code in every
 * position, and for the assign routes each mix of the attacker's and the victim's ids.
 */
function attemptsFor(method: string, path: string): Attempt[] | undefined {
  const v = victim;
  const a = attacker;
  const table: Record<string, Attempt[]> = {
    "DELETE /api/v1/account/keys/:id": [{ path: `/api/v1/account/keys/${v.keyId}` }],
    "GET /api/v1/links/:id": [{ path: `/api/v1/links/${v.link.id}` }],
    "PATCH /api/v1/links/:id": [
      { path: `/api/v1/links/${v.link.id}`, body: { title: "pwned" } },
      { path: `/api/v1/links/${v.link.id}`, body: { is_active: false } },
      { path: `/api/v1/links/${v.link.id}`, body: { analytics_public: true } },
    ],
    "DELETE /api/v1/links/:id": [{ path: `/api/v1/links/${v.link.id}` }],
    "GET /api/v1/links/:id/health": [{ path: `/api/v1/links/${v.link.id}/health` }],
    "POST /api/v1/links/:id/health/check": [{ path: `/api/v1/links/${v.link.id}/health/check` }],
    "GET /api/v1/imports/:id": [{ path: `/api/v1/imports/${v.importId}` }],
    "GET /api/v1/imports/:id/errors": [{ path: `/api/v1/imports/${v.importId}/errors` }],
    "GET /api/v1/imports/:id/attention": [{ path: `/api/v1/imports/${v.importId}/attention` }],
    "GET /api/v1/webhooks/:id": [{ path: `/api/v1/webhooks/${v.webhookId}` }],
    "PATCH /api/v1/webhooks/:id": [
      { path: `/api/v1/webhooks/${v.webhookId}`, body: { url: "http://93.184.216.35/attacker" } },
      { path: `/api/v1/webhooks/${v.webhookId}`, body: { enabled: false } },
    ],
    "DELETE /api/v1/webhooks/:id": [{ path: `/api/v1/webhooks/${v.webhookId}` }],
    "POST /api/v1/webhooks/:id/rotate-secret": [{ path: `/api/v1/webhooks/${v.webhookId}/rotate-secret` }],
    "GET /api/v1/webhooks/:id/deliveries": [{ path: `/api/v1/webhooks/${v.webhookId}/deliveries` }],
    "GET /api/v1/analytics/:link_id": [{ path: `/api/v1/analytics/${v.link.id}` }],
    "GET /api/v1/public/analytics/:short_code": [{ path: `/api/v1/public/analytics/${v.link.short_code}` }],
    "GET /api/v1/qr/:short_code": [{ path: `/api/v1/qr/${v.link.short_code}` }],
    "DELETE /api/v1/utm-templates/:id": [{ path: `/api/v1/utm-templates/${v.utmTemplateId}` }],
    // Public by design: an uploaded image's unguessable id is what link-preview fetchers read it by,
    // with no key (tests/security/smart-links.test.ts attacks what is served).
    "GET /api/v1/images/:id": [],
    "POST /api/domain/:id/verify": [{ path: `/api/domain/${v.domainId}/verify` }],
    "PUT /api/domain/:id/update": [
      { path: `/api/domain/${v.domainId}/update`, body: { redirectroot: "https://evil.example/" } },
    ],
    "DELETE /api/domain/:id/delete": [{ path: `/api/domain/${v.domainId}/delete` }],
    "POST /api/campaign/:campaignid/assign/:linkid": [
      { path: `/api/campaign/${v.campaignId}/assign/${v.link.id}` },
      { path: `/api/campaign/${v.campaignId}/assign/${a.link.id}` },
      { path: `/api/campaign/${a.campaignId}/assign/${v.link.id}` },
    ],
    "PUT /api/campaign/:id/update": [
      { path: `/api/campaign/${v.campaignId}/update`, body: { name: "pwned", slug: "pwned-rotator" } },
    ],
    "DELETE /api/campaign/:id/delete": [{ path: `/api/campaign/${v.campaignId}/delete` }],
    "PUT /api/channel/:id/update": [{ path: `/api/channel/${v.channelId}/update`, body: { name: "pwned" } }],
    "DELETE /api/channel/:id/delete": [{ path: `/api/channel/${v.channelId}/delete` }],
    "POST /api/channel/:channelid/assign/:linkid": [
      { path: `/api/channel/${v.channelId}/assign/${v.link.id}` },
      { path: `/api/channel/${v.channelId}/assign/${a.link.id}` },
      { path: `/api/channel/${a.channelId}/assign/${v.link.id}` },
    ],
    // Dashboard-managed resources: overlays (both generations), campaign and channel membership,
    // campaign analytics.
    "GET /api/overlay/:id": [{ path: `/api/overlay/${v.overlayId}` }],
    "PUT /api/overlay/:id/update": [{ path: `/api/overlay/${v.overlayId}/update`, body: { text: "pwned" } }],
    "DELETE /api/overlay/:id/delete": [{ path: `/api/overlay/${v.overlayId}/delete` }],
    "GET /api/overlay/:id/submissions": [{ path: `/api/overlay/${v.overlayId}/submissions` }],
    "GET /api/overlay/:id/submissions/export": [{ path: `/api/overlay/${v.overlayId}/submissions/export` }],
    "GET /api/v1/overlays/:id": [{ path: `/api/v1/overlays/${v.overlayId}` }],
    "PATCH /api/v1/overlays/:id": [{ path: `/api/v1/overlays/${v.overlayId}`, body: { text: "pwned" } }],
    "DELETE /api/v1/overlays/:id": [{ path: `/api/v1/overlays/${v.overlayId}` }],
    "GET /api/v1/overlays/:id/submissions": [{ path: `/api/v1/overlays/${v.overlayId}/submissions` }],
    "GET /api/v1/overlays/:id/submissions/export": [
      { path: `/api/v1/overlays/${v.overlayId}/submissions/export` },
    ],
    "GET /api/campaign/:id/links": [{ path: `/api/campaign/${v.campaignId}/links` }],
    "PUT /api/campaign/:campaignid/weight/:linkid": [
      { path: `/api/campaign/${v.campaignId}/weight/${v.link.id}`, body: { weight: 9 } },
      { path: `/api/campaign/${a.campaignId}/weight/${v.link.id}`, body: { weight: 9 } },
    ],
    "DELETE /api/campaign/:campaignid/remove/:linkid": [
      { path: `/api/campaign/${v.campaignId}/remove/${v.link.id}` },
      { path: `/api/campaign/${a.campaignId}/remove/${v.link.id}` },
    ],
    "DELETE /api/channel/:channelid/remove/:linkid": [
      { path: `/api/channel/${v.channelId}/remove/${v.link.id}` },
      { path: `/api/channel/${a.channelId}/remove/${v.link.id}` },
    ],
    "GET /api/v1/analytics/campaigns/:id": [{ path: `/api/v1/analytics/campaigns/${v.campaignId}` }],
    // Workspaces: the victim's workspace id in the path, and the victim's member and invitation under
    // the attacker's own workspace.
    "GET /api/v1/workspaces/:id": [{ path: `/api/v1/workspaces/${v.accountId}` }],
    "PATCH /api/v1/workspaces/:id": [{ path: `/api/v1/workspaces/${v.accountId}`, body: { name: "pwned" } }],
    "DELETE /api/v1/workspaces/:id": [{ path: `/api/v1/workspaces/${v.accountId}` }],
    "GET /api/v1/workspaces/:id/members": [{ path: `/api/v1/workspaces/${v.accountId}/members` }],
    "PATCH /api/v1/workspaces/:id/members/:user_id": [
      { path: `/api/v1/workspaces/${v.accountId}/members/${v.userId}`, body: { role: "viewer" } },
      { path: `/api/v1/workspaces/${a.accountId}/members/${v.userId}`, body: { role: "viewer" } },
    ],
    "DELETE /api/v1/workspaces/:id/members/:user_id": [
      { path: `/api/v1/workspaces/${v.accountId}/members/${v.userId}` },
      { path: `/api/v1/workspaces/${a.accountId}/members/${v.userId}` },
    ],
    "POST /api/v1/workspaces/:id/leave": [{ path: `/api/v1/workspaces/${v.accountId}/leave` }],
    "POST /api/v1/workspaces/:id/invitations": [
      {
        path: `/api/v1/workspaces/${v.accountId}/invitations`,
        body: { email: `attacker-${process.pid}@example.com`, role: "owner" },
      },
    ],
    "GET /api/v1/workspaces/:id/invitations": [{ path: `/api/v1/workspaces/${v.accountId}/invitations` }],
    "DELETE /api/v1/workspaces/:id/invitations/:invitation_id": [
      { path: `/api/v1/workspaces/${v.accountId}/invitations/${v.invitationId}` },
      { path: `/api/v1/workspaces/${a.accountId}/invitations/${v.invitationId}` },
    ],
    "GET /api/v1/workspaces/:id/sso": [{ path: `/api/v1/workspaces/${v.accountId}/sso` }],
    "PUT /api/v1/workspaces/:id/sso": [
      {
        path: `/api/v1/workspaces/${v.accountId}/sso`,
        body: {
          issuer: "https://idp.attacker.example",
          client_id: "attacker",
          client_secret: "attacker-secret",
          domains: ["attacker.example"],
          default_role: "member",
        },
      },
    ],
    "DELETE /api/v1/workspaces/:id/sso": [{ path: `/api/v1/workspaces/${v.accountId}/sso` }],
    // The token is the secret: the victim's invitation id, or its stored hash spelled as a token,
    // accepts nothing.
    "POST /api/v1/invitations/:token/accept": [
      { path: `/api/v1/invitations/${v.invitationId}/accept`, body: { password: ACCEPT_PASSWORD } },
      { path: `/api/v1/invitations/${v.invitationHashAsToken}/accept`, body: { password: ACCEPT_PASSWORD } },
    ],
    // The links Kurz e-mails: a token of the right shape that is not one (the victim's invitation's
    // hash spelled as a token) resets no password and confirms no address.
    "POST /api/v1/auth/password-reset/:token": [
      { path: `/api/v1/auth/password-reset/${v.invitationHashAsToken}`, body: { password: ACCEPT_PASSWORD } },
    ],
    "POST /api/v1/auth/email/:token": [{ path: `/api/v1/auth/email/${v.invitationHashAsToken}` }],
    // A user's own passkeys: the victim's passkey id, with the attacker's session (and password, so
    // the answer is about the id alone).
    "PATCH /api/v1/auth/passkeys/:id": [
      { path: `/api/v1/auth/passkeys/${VICTIM_PASSKEY}`, body: { name: "pwned" }, session: true },
    ],
    "DELETE /api/v1/auth/passkeys/:id": [
      {
        path: `/api/v1/auth/passkeys/${VICTIM_PASSKEY}`,
        body: { current_password: attackerSession.password },
        session: true,
      },
    ],
  };
  return table[`${method} ${path}`];
}

const routesWithIds = API_ROUTES.filter((r) => r.path.includes(":"));

beforeAll(async () => {
  const pair = await attackerAndVictim(bed.stack, "tenants");
  [attacker, victim] = await Promise.all([
    furnish(pair.attacker.account_id, pair.asAttacker, "attacker"),
    furnish(pair.victim.account_id, pair.asVictim, "victim"),
  ]);
  const owner = await registerOwner(bed.stack.origin, "tenants-session");
  attackerSession = { cookie: owner.token, csrf: owner.csrf, password: owner.password };
  await bed.prisma.passkey.create({
    data: { id: VICTIM_PASSKEY, userId: victim.userId, publicKey: Buffer.from([1, 2, 3]), name: "victim's" },
  });
});

describe("cross-tenant attempts", () => {
  it("have an attack written for every route that names a resource", () => {
    const missing = routesWithIds
      .map((r) => `${r.method} ${r.path}`)
      .filter((r) => attemptsFor(...(r.split(" ") as [string, string])) === undefined);
    expect(missing).toEqual([]);
  });

  it.each(routesWithIds.map((r) => [`${r.method} ${r.path}`, r] as const))(
    "%s with the victim's id answers as a missing one and changes nothing",
    async (_name, route) => {
      const before = await rowsOf(victim.accountId);
      for (const attempt of attemptsFor(route.method, route.path) ?? []) {
        const res = attempt.session
          ? await callAs(bed.stack.origin, route.method, attempt.path, attackerSession, attempt.body)
          : await attacker.call(route.method, attempt.path, attempt.body);
        if (route.tag === "legacy") expectLegacyError(res, 404);
        else expectV1Error(res, 404, "NOT_FOUND");
        expect(res.text).not.toContain("victim.example");
      }
      expect(await rowsOf(victim.accountId)).toBe(before);
    },
  );

  it("bulk delete skips the victim's links and deletes none of them", async () => {
    const before = await rowsOf(victim.accountId);
    const res = await attacker.call("DELETE", "/api/v1/links/bulk", { ids: [victim.link.id] });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toEqual({ deleted: 0 });
    expect(await rowsOf(victim.accountId)).toBe(before);
  });

  it("lists show only the attacker's own resources", async () => {
    const lists: [string, string][] = [
      ["/api/v1/links?per_page=100", "data"],
      ["/api/v1/imports", "data"],
      ["/api/v1/webhooks", "data"],
      ["/api/domains", "domains"],
      ["/api/campaigns", "campaigns"],
      ["/api/channels", "channels"],
    ];
    for (const [path, member] of lists) {
      const res = await attacker.call("GET", path);
      expect(res.status, res.text).toBe(200);
      const items = member === "data" ? res.body.data : res.body.data[member];
      expect(items, path).toHaveLength(1);
      expect(res.text).not.toContain("victim");
    }
    const usage = (await attacker.call("GET", "/api/v1/account/usage")).body.data;
    expect(usage.keys.map((k: { id: string }) => k.id)).not.toContain(victim.keyId);
  });

  it("GET /api/v1/links/:id (one prepared statement outside Prisma, decision 0044) refuses malformed ids with 400 and never reads another tenant's link", async () => {
    for (const id of ["not-a-uuid", `${victim.link.id}' OR '1'='1`, `${victim.link.id};`]) {
      expectV1Error(
        await attacker.call("GET", `/api/v1/links/${encodeURIComponent(id)}`),
        400,
        "VALIDATION_ERROR",
      );
    }
    // An encoded percent sign is refused by the path check before any route (BAD_REQUEST).
    expectV1Error(await attacker.call("GET", "/api/v1/links/%2500"), 400, "BAD_REQUEST");
    // The victim's id in another spelling Postgres accepts for a uuid is still the victim's: 404.
    for (const id of [victim.link.id.toUpperCase(), `{${victim.link.id}}`]) {
      const res = await attacker.call("GET", `/api/v1/links/${encodeURIComponent(id)}`);
      expect([400, 404], res.text).toContain(res.status);
      expect(res.body?.success, res.text).toBe(false);
      expect(res.text).not.toContain("victim.example");
    }
  });

  it("POST /api/v1/links (the direct body path and one prepared statement outside Prisma, decision 0044) creates only in the caller's own account", async () => {
    const before = await rowsOf(victim.accountId);
    const attackerLinks = () => bed.prisma.link.count({ where: { accountId: attacker.accountId } });
    const count = await attackerLinks();
    const hostile = "'); DELETE FROM links; SELECT kurz_recount_links(NULL); --";
    const attempts: [unknown, Record<string, string>][] = [
      // Identity in the body, in every spelling a handler might read: ignored.
      [
        { url: "https://a.example/1", title: "t", account_id: victim.accountId, accountId: victim.accountId },
        {},
      ],
      // Identity in the gateway's own headers: stripped by the gateway before management sees them.
      [
        { url: "https://a.example/2", title: "t" },
        { "x-kurz-account": victim.accountId, "x-kurz-account-id": victim.accountId },
      ],
      // SQL in every text the statement binds, and a prototype key in the JSON.
      [JSON.stringify({ url: `https://a.example/?q=${encodeURIComponent(hostile)}`, title: hostile }), {}],
      ['{"url":"https://a.example/4","title":"t","__proto__":{"accountId":"x"}}', {}],
    ];
    for (const [body, headers] of attempts) {
      const res = await attacker.call("POST", "/api/v1/links", body, headers);
      expect(res.status, res.text).toBe(201);
      const stored = await bed.prisma.link.findUniqueOrThrow({ where: { id: res.body.data.id } });
      expect(stored.accountId).toBe(attacker.accountId);
    }
    expect((await bed.prisma.link.findFirstOrThrow({ where: { title: hostile } })).accountId).toBe(
      attacker.accountId,
    );
    // The victim's overlay and domain are not the attacker's to put on a link.
    for (const body of [
      { url: "https://a.example/5", title: "t", overlay_id: victim.overlayId },
      { url: "https://a.example/6", title: "t", domain: `go-victim-${process.pid}.example.test` },
    ]) {
      const res = await attacker.call("POST", "/api/v1/links", body);
      expect(res.status, res.text).toBeGreaterThanOrEqual(400);
      expect(res.status, res.text).toBeLessThan(500);
      expect(res.body?.success, res.text).toBe(false);
    }
    expect(await attackerLinks()).toBe(count + attempts.length);
    expect(await rowsOf(victim.accountId)).toBe(before);
  });

  it("POST /api/v1/links refuses malformed bodies in the v1 envelope and creates nothing, on the direct body path and on Express alike", async () => {
    const attackerLinks = () => bed.prisma.link.count({ where: { accountId: attacker.accountId } });
    const count = await attackerLinks();
    const json = { "content-type": "application/json" };
    const cases: [string | undefined, Record<string, string>, number, string][] = [
      // Plain JSON bodies: read by the direct path (decision 0044).
      ['{"url":"https://a.example/x",', json, 400, "VALIDATION_ERROR"],
      ["1", json, 400, "VALIDATION_ERROR"],
      ['"https://a.example/"', json, 400, "VALIDATION_ERROR"],
      ["\ufeff{", json, 400, "VALIDATION_ERROR"],
      ['{"url":"javascript:alert(1)"}', json, 400, "VALIDATION_ERROR"],
      [
        `{"url":"https://a.example/","account_id":"${victim.accountId}","custom_alias":"../x"}`,
        json,
        400,
        "VALIDATION_ERROR",
      ],
      // Bodies of any other form: left to Express, which must answer in the same envelope (a body
      // that claims gzip and is not: Express's inflate refuses it).
      ['{"url":', { "content-type": "application/json; charset=latin1" }, 415, "UNSUPPORTED_MEDIA_TYPE"],
      ['{"url":', { "content-type": "application/json", "content-encoding": "gzip" }, 400, "BAD_REQUEST"],
    ];
    for (const [body, headers, status, code] of cases) {
      const res = await attacker.call("POST", "/api/v1/links", body, headers);
      expect(res.status, `${body} ${JSON.stringify(headers)}: ${res.text}`).toBe(status);
      expectV1Error(res, status, code);
    }
    expect(await attackerLinks()).toBe(count);
  });

  it("the victim's resources still work for the victim (the control case)", async () => {
    const res = await victim.call("GET", `/api/v1/links/${victim.link.id}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.title).toBe("victim");
    const visit = await raw(bed.stack.origin, "GET", `/${victim.link.short_code}`, {
      headers: { "user-agent": "Mozilla/5.0" },
    });
    expect(visit.status).toBe(302);
    expect(visit.headers.location).toBe("https://victim.example/");
  });
});
