// Attacks on single sign-on (docs/workspaces.md, "Single sign-on"), against a real OpenID Connect
// provider started here: a provider's answer with its state changed, replayed, brought without the
// browser's flow cookie or into another browser, and an ID token whose nonce is not the flow's; each
// lands on the sign-in page with `flow_invalid` (an API caller gets 401 in the v1 envelope) and signs
// nobody in. Then the settings: a workspace's provider is set by owners only, never through another
// workspace's id, never at a private address (the SSRF guard), and never for a domain the workspace has
// not proven in DNS (another workspace's proof does not count).
import { startTestIdp, type TestIdp } from "@kurz/testing/oidc-idp";
import { SsoBrowser, throughProvider } from "@kurz/testing/sso-browser";
import { useTestDnsServer } from "@kurz/testing/use-stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  callAs,
  expectV1Error,
  ONE_CLIENT_AUTH_LIMITS,
  type Owner,
  registerOwner,
  uniqueEmail,
  useAttackStack,
} from "./attack.ts";
import { makeTeam, type Team } from "./team.ts";

const START = "/api/v1/auth/oidc/start";
const CALLBACK = "/api/v1/auth/oidc/callback";

let idp: TestIdp;
beforeAll(async () => {
  idp = await startTestIdp();
});
afterAll(() => idp?.stop());
const dns = useTestDnsServer();
// No SSO_ALLOW_HOSTS: a workspace's provider must be at a public https address.
const bed = useAttackStack(
  () => ({
    ...ONE_CLIENT_AUTH_LIMITS,
    SESSION_RATE_LIMIT_PER_MINUTE: "100000",
    OIDC_ISSUER: idp.issuer,
    OIDC_CLIENT_ID: "kurz",
    OIDC_CLIENT_SECRET: "kurz-instance-secret",
    DNS_SERVERS: dns().address,
  }),
  { inProcess: true },
);
const origin = () => bed.stack.origin;
const host = () => new URL(origin()).host;

beforeAll(() => {
  idp.addClient({
    clientId: "kurz",
    clientSecret: "kurz-instance-secret",
    redirectUri: `${origin()}${CALLBACK}`,
  });
});

/** A sign-in taken as far as the provider's answer: the browser (holding its flow cookie) and the answer. */
async function answered(tag: string) {
  const email = uniqueEmail(tag);
  idp.signInAs(`sub-${email}`, { email, email_verified: true });
  const browser = new SsoBrowser();
  const callback = await throughProvider(browser, origin(), START);
  return { browser, callback, email };
}

const signInPage = (code: string) => `${origin()}/login#sso_error=${code}`;

/** The answer lands on the sign-in page with `code`, sets no session, and made no user. */
async function refused(
  step: { location: string | null; setCookies: string[] },
  email: string,
  code = "flow_invalid",
) {
  expect(step.location).toBe(signInPage(code));
  expect(step.setCookies.join("\n")).not.toMatch(/kurz_session=[^;]/);
  expect(await bed.prisma.user.count({ where: { email } })).toBe(0);
}

describe("the provider's answer", () => {
  it("signs in when nothing is changed (the control case)", async () => {
    const { browser, callback, email } = await answered("sso-control");
    const landed = await browser.get(callback);
    expect(landed.location).toBe(`${origin()}/dashboard`);
    expect(browser.jar(host()).get("kurz_session")).toBeTruthy();
    expect(await bed.prisma.user.count({ where: { email } })).toBe(1);
  });

  it("with its state changed is refused, and the flow is spent", async () => {
    const { browser, callback, email } = await answered("sso-state");
    const tampered = new URL(callback);
    tampered.searchParams.set("state", `${tampered.searchParams.get("state")}x`);
    await refused(await browser.get(tampered.href), email);
    // The untouched answer cannot be used afterwards either: the flow went with the first attempt.
    await refused(await browser.get(callback), email);
  });

  it("replayed after a successful sign-in is refused", async () => {
    const { browser, callback } = await answered("sso-replay");
    const flowCookie = browser.jar(host()).get("kurz_sso")!;
    expect((await browser.get(callback)).location).toBe(`${origin()}/dashboard`);
    const replay = await new SsoBrowser().get(callback, { cookie: `kurz_sso=${flowCookie}` });
    expect(replay.location).toBe(signInPage("flow_invalid"));
    expect(replay.setCookies.join("\n")).not.toMatch(/kurz_session=[^;]/);
  });

  it("without the browser's flow cookie is refused (a link sent to someone else)", async () => {
    const { callback, email } = await answered("sso-nocookie");
    await refused(await new SsoBrowser().get(callback), email);
  });

  it("brought into another browser that has a flow of its own is refused (no session swap)", async () => {
    const victim = await answered("sso-victim");
    // The attacker starts a flow of their own and hands the victim's answer to their browser.
    const attacker = new SsoBrowser();
    await attacker.get(`${origin()}${START}`);
    await refused(await attacker.get(victim.callback), victim.email);
  });

  it("whose ID token carries another nonce is refused", async () => {
    const email = uniqueEmail("sso-nonce");
    idp.signInAs(`sub-${email}`, { email, email_verified: true });
    idp.forgeNextNonce();
    const browser = new SsoBrowser();
    const callback = await throughProvider(browser, origin(), START);
    await refused(await browser.get(callback), email);
  });

  it("asked for as JSON answers 401 in the v1 envelope", async () => {
    const { callback } = await answered("sso-json");
    const res = await callAs(origin(), "GET", new URL(callback).pathname + new URL(callback).search, {
      headers: { accept: "application/json" },
    });
    expectV1Error(res, 401, "UNAUTHORIZED");
  });
});

describe("a workspace's provider settings", () => {
  let team: Team;
  const ws = () => `/api/v1/workspaces/${team.workspaceId}/sso`;
  const body = (over: Record<string, unknown> = {}) => ({
    issuer: "https://idp.example",
    client_id: "kurz",
    client_secret: "secret",
    domains: ["corp.example"],
    default_role: "member",
    ...over,
  });

  beforeAll(async () => {
    team = await makeTeam(origin(), "sso");
  }, 60_000);

  it.each(["admin", "member", "viewer"] as const)(
    "are refused to an %s (403), and nothing is stored",
    async (role) => {
      for (const method of ["GET", "PUT", "DELETE"]) {
        const res = await callAs(
          origin(),
          method,
          ws(),
          team.people[role].session,
          method === "PUT" ? body() : undefined,
        );
        expectV1Error(res, 403, "FORBIDDEN");
        expect(res.body.error.details.required_scope).toBe("workspace:owner");
      }
      expect(await bed.prisma.ssoConfig.count({ where: { accountId: team.workspaceId } })).toBe(0);
    },
  );

  it("name only the caller's own workspace: another's id answers 404", async () => {
    const other = await registerOwner(origin(), "sso-other");
    const owner = team.people.owner.session;
    for (const method of ["GET", "PUT", "DELETE"]) {
      const res = await callAs(
        origin(),
        method,
        `/api/v1/workspaces/${other.accountId}/sso`,
        owner,
        method === "PUT" ? body() : undefined,
      );
      expectV1Error(res, 404, "NOT_FOUND");
    }
  });

  it("never reach a provider at a private address or over plain http (the SSRF guard)", async () => {
    const owner = team.people.owner.session;
    const record = (await callAs(origin(), "PUT", ws(), owner, body())).body.error.details.records[0];
    await dns().setTxt(record.name, [record.value]);
    for (const issuer of [idp.issuer, "https://127.0.0.1:9/", "https://169.254.169.254/", "https://[::1]/"]) {
      const res = await callAs(origin(), "PUT", ws(), owner, body({ issuer }));
      expectV1Error(res, 400, "BAD_REQUEST");
      expect(res.body.error.message).toMatch(/https|public address/);
    }
    expect(await bed.prisma.ssoConfig.count({ where: { accountId: team.workspaceId } })).toBe(0);
  });
});

describe("domain proofs", () => {
  const domain = `sso-proof-${process.pid}.example`;
  const asOwner = (o: Owner) => ({ cookie: o.token, csrf: o.csrf });
  const put = (o: Owner, issuer = "https://127.0.0.1:9/") =>
    callAs(origin(), "PUT", `/api/v1/workspaces/${o.accountId}/sso`, asOwner(o), {
      issuer,
      client_id: "kurz",
      client_secret: "secret",
      domains: [domain],
      default_role: "member",
    });

  it("a domain nobody proved is refused before any provider is fetched", async () => {
    const res = await put(await registerOwner(origin(), "sso-proof-none"));
    expectV1Error(res, 400, "BAD_REQUEST");
    expect(res.body.error.details.records[0]).toMatchObject({ domain, name: `_kurz-verify.${domain}` });
  });

  it("one workspace's published record proves nothing for another", async () => {
    const a = await registerOwner(origin(), "sso-proof-a");
    const b = await registerOwner(origin(), "sso-proof-b");
    const record = (await put(a)).body.error.details.records[0];
    await dns().setTxt(record.name, [record.value]);
    // A's proof holds: its save gets as far as the provider (refused by the guard here).
    const aSaved = await put(a);
    expectV1Error(aSaved, 400, "BAD_REQUEST");
    expect(aSaved.body.error.message).toMatch(/public address/);
    // B asks for a record of its own, which is not published.
    const bSaved = await put(b);
    expectV1Error(bSaved, 400, "BAD_REQUEST");
    expect(bSaved.body.error.details.records[0].value).not.toBe(record.value);
    expect(
      await bed.prisma.ssoConfig.count({ where: { accountId: { in: [a.accountId, b.accountId] } } }),
    ).toBe(0);
  });
});
