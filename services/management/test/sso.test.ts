// Single sign-on through a real OpenID Connect provider started here (docs/workspaces.md, "Single
// sign-on"): the server's own provider signs a new person in with a workspace of their own; a
// workspace's provider, once its domain is proven in DNS, lets people of that domain join it as the
// default role; another domain and an unverified address are refused; a second sign-in finds the person
// by the provider's subject even after their address changed there; and an account with a password
// is linked by its verified address.
import { startTestIdp, type TestIdp } from "@kurz/testing/oidc-idp";
import { SsoBrowser, throughProvider } from "@kurz/testing/sso-browser";
import { startStack } from "@kurz/testing/stack";
import { useStack, useTestDnsServer } from "@kurz/testing/use-stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callJson } from "./json-call.ts";
import { RELAXED_LIMITS } from "./links-helpers.ts";

// biome-ignore lint/suspicious/noExplicitAny: assertions check the shape member by member
type Json = any;

const CALLBACK = "/api/v1/auth/oidc/callback";
let idp: TestIdp;
const dns = useTestDnsServer();
const bed = useStack(async () => {
  idp = await startTestIdp();
  return startStack({
    inProcess: true,
    extraEnv: {
      ...RELAXED_LIMITS,
      AUTH_RATE_LIMIT_PER_MINUTE: "100000",
      OIDC_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: "kurz",
      OIDC_CLIENT_SECRET: "kurz-instance-secret",
      OIDC_NAME: "Test IdP",
      SSO_ALLOW_HOSTS: idp.host,
      DNS_SERVERS: dns().address,
    },
  });
});
afterAll(() => idp?.stop());

let seq = 0;
const unique = (label: string) => `${label}-${process.pid}-${Date.now()}-${seq++}`;

async function call(
  method: string,
  path: string,
  session?: { cookie: string; csrf: string },
  body?: unknown,
) {
  const headers: Record<string, string> = {};
  if (session) {
    headers.cookie = `kurz_session=${session.cookie}`;
    headers["x-csrf-token"] = session.csrf;
  }
  const answer = await callJson(`${bed.stack.origin}${path}`, method, headers, body);
  return { ...answer, setCookie: answer.headers.getSetCookie() };
}

/** A whole sign-in in a fresh browser: where it lands and the session it holds (if any). */
async function signIn(startPath: string) {
  const browser = new SsoBrowser();
  const callback = await throughProvider(browser, bed.stack.origin, startPath);
  const landed = await browser.get(callback);
  const cookie = browser.jar(new URL(bed.stack.origin).host).get("kurz_session") ?? null;
  let session: Json = null;
  if (cookie) {
    const res = await fetch(`${bed.stack.origin}/api/v1/auth/session`, {
      headers: { cookie: `kurz_session=${cookie}` },
    });
    session = ((await res.json()) as Json).data;
  }
  return { landed, cookie, session };
}

async function register(email: string, password = "correct horse battery staple 42") {
  const res = await call("POST", "/api/v1/auth/register", undefined, { email, password });
  expect(res.status, res.text).toBe(201);
  const cookie = /kurz_session=([^;]+)/.exec(res.setCookie.join("\n"))![1]!;
  return {
    cookie,
    csrf: res.body.data.session.csrf_token as string,
    workspaceId: res.body.data.account.id as string,
  };
}

beforeAll(() => {
  const redirectUri = `${bed.stack.origin}${CALLBACK}`;
  idp.addClient({ clientId: "kurz", clientSecret: "kurz-instance-secret", redirectUri });
  idp.addClient({ clientId: "kurz-workspace", clientSecret: "kurz-workspace-secret", redirectUri });
});

describe("the server's own provider", () => {
  it("is offered on the sign-in page by its name", async () => {
    const res = await call("GET", "/api/v1/auth/sso");
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.providers).toEqual([{ name: "Test IdP", start_url: "/api/v1/auth/oidc/start" }]);
  });

  it("signs a new person in with a workspace of their own, without a password", async () => {
    const email = `${unique("new")}@people.example`;
    idp.signInAs(unique("sub"), { email, email_verified: true });
    const { landed, session } = await signIn("/api/v1/auth/oidc/start");
    expect(landed.status).toBe(302);
    expect(landed.location).toBe(`${bed.stack.origin}/dashboard`);
    expect(session.email).toBe(email);
    expect(session.workspaces).toHaveLength(1);
    expect(session.role).toBe("owner");
    const user = await bed.prisma.user.findUniqueOrThrow({ where: { email } });
    expect(user.passwordHash).toBeNull();
  });

  it("finds the person by subject the second time, whatever address the provider gives now", async () => {
    const sub = unique("sub");
    const email = `${unique("first")}@people.example`;
    idp.signInAs(sub, { email, email_verified: true });
    const first = await signIn("/api/v1/auth/oidc/start");
    idp.signInAs(sub, { email: `${unique("renamed")}@people.example`, email_verified: true });
    const second = await signIn("/api/v1/auth/oidc/start");
    expect(second.session.user_id).toBe(first.session.user_id);
    expect(second.session.email).toBe(email);
    expect(await bed.prisma.userIdentity.count({ where: { userId: first.session.user_id } })).toBe(1);
  });

  it("links an account that has a password by its verified address; the password still works", async () => {
    const email = `${unique("pw")}@people.example`;
    const owner = await register(email);
    idp.signInAs(unique("sub"), { email, email_verified: true });
    const { session } = await signIn("/api/v1/auth/oidc/start");
    expect(session.account_id).toBe(owner.workspaceId);
    const login = await call("POST", "/api/v1/auth/login", undefined, {
      email,
      password: "correct horse battery staple 42",
    });
    expect(login.status, login.text).toBe(200);
  });

  it("meets a workspace's two-factor requirement, where a password session of the same person is held back", async () => {
    const email = `${unique("strict")}@people.example`;
    const owner = await register(email);
    await bed.prisma.account.update({ where: { id: owner.workspaceId }, data: { requireTwoFactor: true } });
    const held = await call("GET", "/api/v1/links", owner);
    expect(held.status, held.text).toBe(403);
    expect(held.body.error.code).toBe("TWO_FACTOR_REQUIRED");
    idp.signInAs(unique("sub"), { email, email_verified: true });
    const { cookie, session } = await signIn("/api/v1/auth/oidc/start");
    const through = await call("GET", "/api/v1/links", { cookie: cookie!, csrf: session.csrf_token });
    expect(through.status, through.text).toBe(200);
  });

  it("refuses an address the provider does not call verified, and makes nobody", async () => {
    const email = `${unique("unverified")}@people.example`;
    idp.signInAs(unique("sub"), { email, email_verified: false });
    const { landed, cookie } = await signIn("/api/v1/auth/oidc/start");
    expect(landed.location).toBe(`${bed.stack.origin}/login#sso_error=email_unverified`);
    expect(cookie).toBeNull();
    expect(await bed.prisma.user.count({ where: { email } })).toBe(0);
  });
});

describe("a workspace's own provider", () => {
  const domain = `${unique("corp")}.example`.toLowerCase();
  let owner: Awaited<ReturnType<typeof register>>;
  const body = () => ({
    issuer: idp.issuer,
    client_id: "kurz-workspace",
    client_secret: "kurz-workspace-secret",
    domains: [domain],
    default_role: "viewer",
  });

  beforeAll(async () => {
    owner = await register(`${unique("owner")}@${domain}`);
  });

  it("is saved only once DNS proves the workspace controls the domain", async () => {
    const path = `/api/v1/workspaces/${owner.workspaceId}/sso`;
    const refused = await call("PUT", path, owner, body());
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.error.code).toBe("BAD_REQUEST");
    const [record] = refused.body.error.details.records;
    expect(record).toMatchObject({ domain, type: "TXT", name: `_kurz-verify.${domain}` });
    expect(await bed.prisma.ssoConfig.count({ where: { accountId: owner.workspaceId } })).toBe(0);

    await dns().setTxt(record.name, [record.value]);
    const saved = await call("PUT", path, owner, body());
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.data).toMatchObject({
      issuer: idp.issuer,
      client_id: "kurz-workspace",
      client_secret_set: true,
      domains: [domain],
      default_role: "viewer",
      redirect_uri: `${bed.stack.origin}${CALLBACK}`,
      sign_in_url: `${bed.stack.origin}/login?sso=${owner.workspaceId}`,
    });
    expect(saved.text).not.toContain("kurz-workspace-secret");
    const row = await bed.prisma.ssoConfig.findUniqueOrThrow({ where: { accountId: owner.workspaceId } });
    expect(row.clientSecretSealed).not.toContain("kurz-workspace-secret");

    // Saving again without the secret keeps the stored one.
    const { client_secret: _, ...withoutSecret } = body();
    expect((await call("PUT", path, owner, withoutSecret)).status).toBe(200);
    const read = await call("GET", path, owner);
    expect(read.status, read.text).toBe(200);
    expect(read.body.data.domains).toEqual([domain]);
  });

  it("is offered on the sign-in page opened with the workspace's id", async () => {
    const res = await call("GET", `/api/v1/auth/sso?workspace=${owner.workspaceId}`);
    expect(res.body.data.providers[0]).toEqual({
      name: "your organisation",
      start_url: `/api/v1/auth/oidc/start?workspace=${owner.workspaceId}`,
    });
  });

  it("lets a person of the domain join as the default role on their first sign-in", async () => {
    const email = `${unique("jit")}@${domain}`;
    idp.signInAs(unique("sub"), { email, email_verified: true });
    const { landed, session } = await signIn(`/api/v1/auth/oidc/start?workspace=${owner.workspaceId}`);
    expect(landed.location).toBe(`${bed.stack.origin}/dashboard`);
    expect(session.workspaces).toEqual([expect.objectContaining({ id: owner.workspaceId, role: "viewer" })]);
    const members = await call("GET", `/api/v1/workspaces/${owner.workspaceId}/members`, owner);
    expect(members.body.data.map((m: Json) => m.email)).toContain(email);

    // The second time they are found by subject and stay a viewer.
    const again = await signIn(`/api/v1/auth/oidc/start?workspace=${owner.workspaceId}`);
    expect(again.session.user_id).toBe(session.user_id);
    expect(again.session.role).toBe("viewer");

    // The workspace's audit log has the join once and both sign-ins, each in its session's transaction.
    const events = await bed.prisma.auditEvent.findMany({
      where: { accountId: owner.workspaceId, actorId: session.user_id },
      orderBy: { id: "asc" },
    });
    expect(events.map((e) => [e.action, e.details])).toEqual([
      ["member.joined", { role: "viewer", via: "sso" }],
      ["session.signed_in", { via: "sso" }],
      ["session.signed_in", { via: "sso" }],
    ]);
    expect(events[0]!.actorLabel).toBe(email);
    const configured = await bed.prisma.auditEvent.count({
      where: { accountId: owner.workspaceId, action: "sso.configured" },
    });
    expect(configured).toBeGreaterThan(0);
  });

  it("refuses an address of another domain, and changes nothing", async () => {
    const email = `${unique("outsider")}@elsewhere.example`;
    idp.signInAs(unique("sub"), { email, email_verified: true });
    const before = await bed.prisma.membership.count({ where: { accountId: owner.workspaceId } });
    const { landed, cookie } = await signIn(`/api/v1/auth/oidc/start?workspace=${owner.workspaceId}`);
    expect(landed.location).toBe(`${bed.stack.origin}/login#sso_error=domain_not_allowed`);
    expect(cookie).toBeNull();
    expect(await bed.prisma.user.count({ where: { email } })).toBe(0);
    expect(await bed.prisma.membership.count({ where: { accountId: owner.workspaceId } })).toBe(before);
  });

  it("refuses an unverified address of the domain", async () => {
    idp.signInAs(unique("sub"), { email: `${unique("unverified")}@${domain}`, email_verified: false });
    const { landed } = await signIn(`/api/v1/auth/oidc/start?workspace=${owner.workspaceId}`);
    expect(landed.location).toBe(`${bed.stack.origin}/login#sso_error=email_unverified`);
  });

  it("is removed by its owner; its sign-in then says it is not configured", async () => {
    const path = `/api/v1/workspaces/${owner.workspaceId}/sso`;
    expect((await call("DELETE", path, owner)).status).toBe(200);
    expect((await call("GET", path, owner)).status).toBe(404);
    const start = await new SsoBrowser().get(
      `${bed.stack.origin}/api/v1/auth/oidc/start?workspace=${owner.workspaceId}`,
    );
    expect(start.location).toBe(`${bed.stack.origin}/login#sso_error=not_configured`);
  });
});
