// Attacks on what an operator can change and on the inputs SnipURL's documented examples send
// (docs/security.md, "Operators' route"; docs/api.md, "Plans and limits"): the admin route that sets an
// account's plan status, link limit and rate limits must answer only the operators' credential (never a
// user's key or session, a wrong secret, or any service's credential, the redirect's included); the CLI runs
// the same use case; a link password is any non-empty string up to its cap, wherever one is accepted.
import { execFile } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { callerToken, forwardedHeaders, forwardToken } from "@kurz/service-kit";
import { cliNodeArgs, ensureBundles } from "@kurz/testing/bundles";
import { beforeAll, describe, expect, it } from "vitest";
import { loadManagementConfig } from "../../services/management/src/config.ts";
import { api, expectV1Error, raw, uniqueEmail, useAttackStack } from "./attack.ts";

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, "../..");
const ADMIN_TOKEN = randomBytes(32).toString("hex");
const ADMIN_PATH = "/internal/admin/accounts";
const ADMIN_HEADER = "x-kurz-admin-token";
const CLI_TIMEOUT_MS = 300_000;

/** PATCH of the admin route on management itself (where operators reach it), with the given headers. */
const admin = (headers: Record<string, string>, body: unknown, origin = bed.stack.urls.management) =>
  raw(origin, "PATCH", ADMIN_PATH, {
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

/** A signed-up user: its key and its session cookie (`name=value`) with the CSRF token. */
async function signUp(tag: string) {
  const email = uniqueEmail(tag);
  const res = await raw(bed.stack.origin, "POST", "/api/v1/auth/register", {
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: `Op-${randomUUID()}` }),
  });
  expect(res.status, res.text).toBe(201);
  const setCookie = [res.headers["set-cookie"] ?? []].flat().join("\n");
  const cookie = /^([^=;\s]+=[^;]*)/.exec(setCookie)?.[1] ?? "";
  expect(cookie).not.toBe("");
  return { email, key: res.body.data.api_key.key as string, cookie, csrf: res.body.data.session.csrf_token };
}

const limitsOf = (email: string) =>
  bed.prisma.account.findFirstOrThrow({
    where: { email },
    select: { linkLimit: true, plan: true, rateLimitPerMinute: true, rateLimitPerHour: true },
  });
const bed = useAttackStack(
  { TITLE_FETCH_ENABLED: "false" },
  { inProcess: true, serviceEnv: { management: { ADMIN_TOKEN } } },
);

describe("the admin route", () => {
  it("refuses a user's key or session, a wrong secret and every service's credential; nothing changes", async () => {
    const user = await signUp("admin-attacker");
    const before = await limitsOf(user.email);
    const raise = { email: user.email, link_limit: 1_000_000, status: "pro", rate_limit_per_minute: 100_000 };
    const secret = bed.stack.env.INTERNAL_TOKEN!;
    const wrong = randomBytes(32).toString("hex");
    const attempts: [string, Record<string, string>, number][] = [
      ["no credential", {}, 401],
      ["the user's key", { authorization: `Bearer ${user.key}` }, 401],
      ["the user's session", { cookie: user.cookie, "x-csrf-token": user.csrf }, 401],
      ["a wrong secret", { [ADMIN_HEADER]: wrong }, 401],
      ["the admin secret's first half", { [ADMIN_HEADER]: ADMIN_TOKEN.slice(0, 32) }, 401],
      ["INTERNAL_TOKEN itself", { [ADMIN_HEADER]: secret }, 401],
      [
        "the redirect's credential as the admin one",
        { [ADMIN_HEADER]: callerToken(secret, "redirect") },
        401,
      ],
      ["the gateway's forwarding credential as the admin one", { [ADMIN_HEADER]: forwardToken(secret) }, 401],
      ...(["redirect", "gateway", "analytics", "management"] as const).map(
        (caller): [string, Record<string, string>, number] => [
          `the ${caller}'s caller credential`,
          { "x-kurz-internal-token": callerToken(secret, caller), "x-kurz-caller": caller },
          403,
        ],
      ),
      // The right secret does not help a request that also carries a service's or a user's standing.
      [
        "the admin secret beside the redirect's credential",
        { [ADMIN_HEADER]: ADMIN_TOKEN, "x-kurz-internal-token": callerToken(secret, "redirect") },
        403,
      ],
      [
        "the admin secret beside a forwarded user identity",
        { [ADMIN_HEADER]: ADMIN_TOKEN, ...forwardedHeaders(secret, { accountId: randomUUID() }) },
        403,
      ],
    ];
    for (const [what, headers, status] of attempts) {
      const res = await admin(headers, raise);
      expect(res.status, `${what}: ${res.text}`).toBe(status);
      expect(res.body?.success, what).toBe(false);
    }
    // The public origin serves no /internal path, not even with the right secret.
    for (const path of [
      ADMIN_PATH,
      `/api/v1/..${ADMIN_PATH}`,
      `/api/..${ADMIN_PATH}`,
      `/api/v1${ADMIN_PATH}`,
    ]) {
      const res = await raw(bed.stack.origin, "PATCH", path, {
        headers: {
          "content-type": "application/json",
          [ADMIN_HEADER]: ADMIN_TOKEN,
          authorization: `Bearer ${user.key}`,
        },
        body: JSON.stringify(raise),
      });
      expect([400, 404, 405], `${path}: ${res.status} ${res.text}`).toContain(res.status);
    }
    expect(await limitsOf(user.email)).toEqual(before);
    const account = await api(bed.stack, user.key)("GET", "/api/v1/account");
    expect(account.body.data).toMatchObject({
      status: "free",
      link_limit: 500,
      rate_limit_per_minute: 100_000,
    });
  });

  it("with the operators' secret: raises the limit past the link limit's 403 and the new rate limits count at once", async () => {
    const user = await bed.stack.createAccount(uniqueEmail("admin-upgrade"), 1);
    const call = api(bed.stack, user.api_key);
    expect((await call("POST", "/api/v1/links", { url: "https://example.com/1" })).status).toBe(201);
    const full = await call("POST", "/api/v1/links", { url: "https://example.com/2" });
    expectV1Error(full, 403, "FORBIDDEN");
    expect(full.body.error.message).toBe(
      "Link limit reached (1). Delete existing links or upgrade your plan.",
    );

    const res = await admin(
      { [ADMIN_HEADER]: ADMIN_TOKEN },
      {
        email: user.email.toUpperCase(),
        link_limit: 3,
        status: "pro",
        rate_limit_per_minute: 7,
        rate_limit_per_hour: 70,
      },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        id: user.account_id,
        email: user.email,
        status: "pro",
        link_limit: 3,
        rate_limit_per_minute: 7,
        rate_limit_per_hour: 70,
        keys_updated: 1,
      },
    });
    // The key's cached record was replaced: the very next request is counted against 7 per minute.
    const again = await call("POST", "/api/v1/links", { url: "https://example.com/2" });
    expect(again.status, again.text).toBe(201);
    expect(again.headers["x-ratelimit-limit"]).toBe("7");
    const account = await call("GET", "/api/v1/account");
    expect(account.body.data).toMatchObject({
      status: "pro",
      link_limit: 3,
      total_links: 2,
      rate_limit_per_minute: 7,
      rate_limit_per_hour: 70,
    });
    // The older API shows the plan as its `status`.
    expect((await call("GET", "/api/account")).body.data.status).toBe("pro");
    // A key created afterwards gets the account's limits, not the service's defaults.
    const minted = await call("POST", "/api/v1/account/keys", { name: "later" });
    expect(minted.status, minted.text).toBe(201);
    expect(minted.body.data).toMatchObject({ rate_limit_per_minute: 7, rate_limit_per_hour: 70 });
  });

  it("refuses bad input with the field that is wrong, and an unknown account with 404", async () => {
    const user = await bed.stack.createAccount(uniqueEmail("admin-input"));
    const before = await limitsOf(user.email);
    const auth = { [ADMIN_HEADER]: ADMIN_TOKEN };
    for (const [body, field] of [
      [{ email: user.email, link_limit: -1 }, "link_limit"],
      [{ email: user.email, link_limit: 1.5 }, "link_limit"],
      [{ email: user.email, rate_limit_per_minute: 0 }, "rate_limit_per_minute"],
      [{ email: user.email, status: "Pro Plan" }, "status"],
      [{ email: "not-an-email", link_limit: 5 }, "email"],
      [{ email: user.email, plan: "pro" }, null],
      [{ email: user.email }, null],
    ] as const) {
      const res = await admin(auth, body);
      expectV1Error(res, 400, "VALIDATION_ERROR");
      if (field !== null)
        expect(res.body.error.details[field]._errors.length, JSON.stringify(body)).toBeGreaterThan(0);
    }
    const inverted = await admin(auth, {
      email: user.email,
      rate_limit_per_minute: 50,
      rate_limit_per_hour: 49,
    });
    expectV1Error(inverted, 400, "VALIDATION_ERROR");
    expect(inverted.body.error.details.rate_limit_per_hour._errors.length).toBeGreaterThan(0);
    expectV1Error(await admin(auth, { email: uniqueEmail("nobody"), link_limit: 5 }), 404, "NOT_FOUND");
    expect(await limitsOf(user.email)).toEqual(before);
  });

  it("names a workspace by id when its owner's e-mail is the contact of several, and by exactly one name", async () => {
    const user = await signUp("admin-two-workspaces");
    const second = await raw(bed.stack.origin, "POST", "/api/v1/workspaces", {
      headers: { "content-type": "application/json", cookie: user.cookie, "x-csrf-token": user.csrf },
      body: JSON.stringify({ name: "second" }),
    });
    expect(second.status, second.text).toBe(201);
    const auth = { [ADMIN_HEADER]: ADMIN_TOKEN };
    const ambiguous = await admin(auth, { email: user.email, link_limit: 9 });
    expectV1Error(ambiguous, 409, "CONFLICT");
    expect(ambiguous.body.error.message).toMatch(/by its id/);
    expectV1Error(
      await admin(auth, { email: user.email, account_id: second.body.data.id, link_limit: 9 }),
      400,
      "VALIDATION_ERROR",
    );
    const byId = await admin(auth, { account_id: second.body.data.id, link_limit: 9 });
    expect(byId.status, byId.text).toBe(200);
    expect(byId.body.data).toMatchObject({ id: second.body.data.id, email: user.email, link_limit: 9 });
    const counts = await bed.prisma.account.findMany({
      where: { email: user.email },
      select: { linkLimit: true },
    });
    expect(counts.map((a) => a.linkLimit).sort((a, b) => a - b)).toEqual([9, 500]);
  });

  it("cannot be configured with a weak secret or one a service holds", () => {
    const secret = "x".repeat(48);
    const base = { INTERNAL_TOKEN: secret };
    for (const adminToken of [
      "short-secret",
      secret,
      callerToken(secret, "redirect"),
      callerToken(secret, "gateway"),
      forwardToken(secret),
    ]) {
      expect(() => loadManagementConfig({ ...base, ADMIN_TOKEN: adminToken }), adminToken).toThrow(
        /ADMIN_TOKEN/,
      );
    }
    expect(loadManagementConfig({ ...base, ADMIN_TOKEN }).ADMIN_TOKEN).toBe(ADMIN_TOKEN);
  });
});

describe("./kurz accounts:update", () => {
  // Management's CLI bundle, the process `./kurz` hands its commands to (infra/local/cli.ts) and the
  // image runs, on the stack's database and Redis. The launcher in front of it (a TypeScript loader,
  // about a second of CPU a run) is run by `./kurz import` next to a stack (tests/e2e/cli-stack.test.ts).
  beforeAll(async () => {
    await ensureBundles();
  }, CLI_TIMEOUT_MS);
  const cli = (args: string[]) =>
    run(process.execPath, cliNodeArgs(["accounts:update", ...args]), {
      cwd: ROOT,
      env: { ...process.env, ...bed.stack.env },
      timeout: CLI_TIMEOUT_MS,
    });

  // Each CLI run starts a process: a second or two on an idle machine, a minute on a loaded one. The
  // two tests run side by side, each on an account of its own.
  it.concurrent("sets the plan, the link limit and the keys' rate limits, effective on the key's next request", {
    timeout: CLI_TIMEOUT_MS,
  }, async () => {
    const user = await bed.stack.createAccount(uniqueEmail("cli-upgrade"), 1);
    const { stdout } = await cli([
      "--email",
      user.email,
      "--link-limit",
      "5",
      "--rate-limit",
      "9",
      "--rate-limit-hour",
      "90",
      "--status",
      "pro",
    ]);
    const out = JSON.parse(stdout.trim().split("\n").at(-1)!);
    expect(out).toMatchObject({
      email: user.email,
      status: "pro",
      link_limit: 5,
      rate_limit_per_minute: 9,
      keys_updated: 1,
    });
    const res = await api(bed.stack, user.api_key)("GET", "/api/v1/account");
    expect(res.headers["x-ratelimit-limit"]).toBe("9");
    expect(res.body.data).toMatchObject({
      status: "pro",
      link_limit: 5,
      rate_limit_per_minute: 9,
      rate_limit_per_hour: 90,
    });
  });

  it.concurrent("says what is wrong and changes nothing", { timeout: CLI_TIMEOUT_MS }, async () => {
    const user = await bed.stack.createAccount(uniqueEmail("cli-bad"));
    const before = await limitsOf(user.email);
    const cases = [
      [["--email", user.email, "--rate-limit", "lots"], "--rate-limit must be a whole number"],
      [["--email", user.email, "--status", "PRO!"], "--status: A status is"],
      [["--email", user.email], "Give at least one of"],
      [["--email", uniqueEmail("nobody"), "--link-limit", "5"], "No account with e-mail"],
    ] as const;
    const failures = await Promise.all(
      cases.map(([args]) =>
        cli([...args]).then(
          () => null,
          (err: { code: number; stderr: string }) => err,
        ),
      ),
    );
    for (const [i, [args, said]] of cases.entries()) {
      expect(failures[i]?.code, args.join(" ")).toBe(1);
      expect(failures[i]?.stderr).toContain(said);
    }
    expect(await limitsOf(user.email)).toEqual(before);
  });
});

describe("link passwords, as SnipURL's documented bulk example sends them", () => {
  it('"secret" protects its link: the visitor gets the form, a wrong guess is refused, "secret" opens it', async () => {
    const user = await bed.stack.createAccount(uniqueEmail("link-pw"));
    const call = api(bed.stack, user.api_key);
    const made = await call("POST", "/api/v1/links/bulk", {
      links: [{ url: "https://example.com/page-4", password: "secret" }],
    });
    expect(made.status, made.text).toBe(201);
    expect(made.body.data.failed).toEqual([]);
    const id = made.body.data.success[0].id as string;
    expect((await call("GET", `/api/v1/links/${id}`)).body.data.has_password).toBe(true);
    const code = made.body.data.success[0].short_code as string;
    const form = { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": "203.0.113.77" };
    const visit = await raw(bed.stack.origin, "GET", `/${code}`, {
      headers: { "x-forwarded-for": "203.0.113.77" },
    });
    expect(visit.headers.location).toBeUndefined();
    const wrong = await raw(bed.stack.origin, "POST", `/${code}`, { headers: form, body: "password=Secret" });
    expect(wrong.status).toBe(401);
    const open = await raw(bed.stack.origin, "POST", `/${code}`, { headers: form, body: "password=secret" });
    expect([open.status, open.headers.location]).toEqual([303, "https://example.com/page-4"]);
  });
});
