// The continuity snapshot's clicks back into analytics (docs/continuity.md): Debian's nginx serves a
// workspace's nginx snapshot, visitors with various agents (a bot among them) hit it, and
// `./kurz import clicks --nginx-log FILE` replays its access log into the stack's real bus and
// analytics. Each logged redirect counts once, bots as bots; a second replay of the same log counts
// nothing again; garbage lines, requests that were no click and a forged line naming another
// workspace's code are counted in the report and give no click.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { clickLimitKey } from "@kurz/contracts";
import { createPrisma, type PrismaClient } from "@kurz/db";
import { getFreePort, waitFor } from "@kurz/testing";
import { type Stack, startStack } from "@kurz/testing/stack";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportSnapshot } from "../../services/management/src/exports/snapshot.ts";
import { api, RELAXED_LIMITS, uniqueEmail } from "../security/attack.ts";

const NGINX = "/usr/sbin/nginx";
const ROOT = resolve(import.meta.dirname, "../..");
const run = promisify(execFile);

const DESKTOP =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36";
const MOBILE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const BOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

let stack: Stack;
let prisma: PrismaClient;
let dir: string;
let nginx: ChildProcess | undefined;
let port = 0;
let email = "";
let call: ReturnType<typeof api>;
let otherCall: ReturnType<typeof api>;
const links: Record<string, { id: string; code: string }> = {};

/** One request to the snapshot's nginx, as the public host. */
const visit = (method: string, path: string, headers: Record<string, string> = {}) =>
  new Promise<number>((done, fail) => {
    const req = request(
      { host: "127.0.0.1", port, method, path, headers: { host: "127.0.0.1", ...headers } },
      (res) => {
        res.resume();
        res.on("end", () => done(res.statusCode!));
      },
    );
    req.on("error", fail);
    req.end();
  });

async function createLink(caller: ReturnType<typeof api>, body: Record<string, unknown>) {
  const res = await caller("POST", "/api/v1/links", body);
  expect(res.status, res.text).toBe(201);
  return { id: res.body.data.id as string, code: res.body.data.short_code as string };
}

beforeAll(async () => {
  stack = await startStack({ inProcess: true, extraEnv: RELAXED_LIMITS });
  prisma = createPrisma(stack.databaseUrl);
  email = uniqueEmail("replay");
  const owner = await stack.createAccount(email);
  call = api(stack, owner.api_key);
  otherCall = api(stack, (await stack.createAccount(uniqueEmail("replay-other"))).api_key);
  links.plain = await createLink(call, { url: "https://example.com/plain" });
  links.bots = await createLink(call, { url: "https://example.com/bots" });
  links.gone = await createLink(call, { url: "https://example.com/gone" });
  // Expired by the time of the snapshot (the API takes only future expiries).
  await prisma.link.update({
    where: { id: links.gone.id },
    data: { expiresAt: new Date(Date.now() - 1000) },
  });
  links.secret = await createLink(call, { url: "https://example.com/secret", password: "hunter2-long" });
  links.foreign = await createLink(otherCall, { url: "https://example.com/theirs" });
  links.limited = await createLink(call, { url: "https://example.com/limited", max_clicks: 3 });

  dir = mkdtempSync(join(tmpdir(), "kurz-replay-"));
  port = await getFreePort();
  const out = join(dir, "snapshot");
  await exportSnapshot(prisma, {
    accountId: owner.account_id,
    baseUrl: stack.env.PUBLIC_BASE_URL!,
    format: "nginx",
    out,
    now: new Date(),
    status: 302,
    listen: `127.0.0.1:${port}`,
  });
  const prefix = join(dir, "prefix");
  mkdirSync(join(prefix, "logs"), { recursive: true });
  // nginx's workers run unprivileged when it is started as root: they must reach the prefix.
  chmodSync(dir, 0o755);
  chmodSync(prefix, 0o755);
  let stderr = "";
  nginx = spawn(NGINX, ["-p", prefix, "-c", join(out, "nginx.conf"), "-e", "stderr", "-g", "daemon off;"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  nginx.stderr?.on("data", (d) => {
    stderr += String(d);
  });
  await waitFor(
    () =>
      visit("GET", "/").then(
        () => true,
        () => false,
      ),
    { timeoutMs: 10_000, description: "nginx serving the snapshot" },
  ).catch((err: unknown) => {
    throw new Error(`nginx did not start: ${stderr}`, { cause: err });
  });
}, 180_000);

afterAll(async () => {
  if (nginx && nginx.exitCode === null && nginx.signalCode === null) {
    const exited = once(nginx, "exit");
    nginx.kill("SIGTERM");
    await exited;
  }
  await prisma?.$disconnect();
  await stack?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** `./kurz import clicks` as the script runs it (management's CLI bundle) against the stack: its report. */
async function replay(log: string) {
  const { stdout, stderr } = await run(
    process.execPath,
    ["--import", "tsx", "infra/local/cli.ts", "import", "clicks", "--account", email, "--nginx-log", log],
    { cwd: ROOT, env: { ...process.env, ...stack.env }, timeout: 120_000 },
  );
  return { report: JSON.parse(stdout.trim().split("\n").at(-1)!), stderr };
}

const analytics = async (id: string, caller = call) => {
  const res = await caller("GET", `/api/v1/analytics/${id}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data as {
    total_clicks: number;
    bot_clicks: number;
    devices: { device_type: string; count: number }[];
  };
};

describe.skipIf(!existsSync(NGINX))("replaying the snapshot's nginx log into analytics", () => {
  it("counts each logged redirect once, bots as bots, and a second replay adds nothing", async () => {
    const ref = { referer: "https://news.example/article" };
    expect(await visit("GET", `/${links.plain!.code}`, { "user-agent": DESKTOP, ...ref })).toBe(302);
    expect(await visit("GET", `/${links.plain!.code}?utm_source=x`, { "user-agent": DESKTOP })).toBe(302);
    expect(await visit("GET", `/${links.plain!.code}`, { "user-agent": MOBILE })).toBe(302);
    expect(await visit("GET", `/${links.bots!.code}`, { "user-agent": BOT })).toBe(302);
    // Not clicks: a HEAD only answers, an expired and a password-protected link redirect nowhere, 404.
    expect(await visit("HEAD", `/${links.plain!.code}`, { "user-agent": DESKTOP })).toBe(302);
    expect(await visit("GET", `/${links.gone!.code}`)).toBe(410);
    expect(await visit("GET", `/${links.secret!.code}`)).toBe(503);
    expect(await visit("GET", "/no-such-code")).toBe(404);

    const log = join(dir, "prefix", "logs", "kurz-snapshot-access.log");
    await waitFor(() => existsSync(log) && readFileSync(log, "utf8").trim().split("\n").length >= 9, {
      timeoutMs: 5_000,
      description: "nginx's log lines",
    });
    const lines = readFileSync(log, "utf8").trim().split("\n");
    // nginx's own: the start-up probe's 404 first, then the eight visits.
    expect(lines).toHaveLength(9);
    const aLine = JSON.parse(lines.find((l) => l.includes('"status":"302"'))!);
    // Garbage, a line far too long, and a forged redirect of another workspace's code.
    appendFileSync(log, "not json at all\n{}\n[1,2]\n");
    appendFileSync(log, `${JSON.stringify({ ...aLine, user_agent: "x".repeat(200_000) })}\n`);
    appendFileSync(
      log,
      `${JSON.stringify({ ...aLine, request_id: "f".repeat(32), uri: `/${links.foreign!.code}` })}\n`,
    );

    const first = await replay(log);
    expect(first.report).toEqual({
      lines: 14,
      replayed: 4,
      bad: 4,
      notClicks: 5,
      unknown: 1,
      duplicates: 0,
      limitCounted: 0,
      limitNotCounted: 0,
    });
    expect(first.stderr).toContain("4 replayed, 4 skipped (bad lines)");
    const plain = await waitFor(
      async () => {
        const a = await analytics(links.plain!.id);
        return a.total_clicks >= 3 ? a : null;
      },
      { timeoutMs: 30_000, description: "the replayed clicks in analytics" },
    );
    expect(plain.total_clicks).toBe(3);
    expect(Object.fromEntries(plain.devices.map((d) => [d.device_type, d.count]))).toEqual({
      desktop: 2,
      mobile: 1,
    });
    const bots = await waitFor(
      async () => {
        const a = await analytics(links.bots!.id);
        return a.bot_clicks >= 1 ? a : null;
      },
      { timeoutMs: 30_000, description: "the bot's click" },
    );
    expect(bots).toMatchObject({ total_clicks: 0, bot_clicks: 1 });

    // Again, with one visit more at its end: once that one is counted, the whole log was read again,
    // and only it was new.
    expect(await visit("GET", `/${links.plain!.code}`, { "user-agent": DESKTOP })).toBe(302);
    await waitFor(() => readFileSync(log, "utf8").trim().split("\n").length >= 15, {
      timeoutMs: 5_000,
      description: "the new visit's log line",
    });
    const second = await replay(log);
    expect(second.report).toMatchObject({ replayed: 5, bad: 4, unknown: 1 });
    await waitFor(async () => (await analytics(links.plain!.id)).total_clicks >= 4, {
      timeoutMs: 30_000,
      description: "the one new click",
    });
    expect((await analytics(links.plain!.id)).total_clicks).toBe(4);
    expect(await analytics(links.bots!.id)).toMatchObject({ total_clicks: 0, bot_clicks: 1 });
    expect(await analytics(links.foreign!.id, otherCall)).toMatchObject({ total_clicks: 0, bot_clicks: 0 });
  }, 180_000);

  it("counts replayed human clicks against a link's click limit, each once", async () => {
    const log = join(dir, "prefix", "logs", "kurz-snapshot-access.log");
    const before = readFileSync(log, "utf8").trim().split("\n").length;
    // The snapshot cannot know the count, so it serves the limited link as active.
    expect(await visit("GET", `/${links.limited!.code}`, { "user-agent": DESKTOP })).toBe(302);
    expect(await visit("GET", `/${links.limited!.code}`, { "user-agent": MOBILE })).toBe(302);
    expect(await visit("GET", `/${links.limited!.code}`, { "user-agent": BOT })).toBe(302);
    await waitFor(() => readFileSync(log, "utf8").trim().split("\n").length >= before + 3, {
      timeoutMs: 5_000,
      description: "the visits' log lines",
    });
    const redis = new Redis(stack.env.REDIS_URL!, { keyPrefix: stack.env.REDIS_KEY_PREFIX });
    try {
      // The bot is not counted, as the redirect does not count it.
      const first = await replay(log);
      expect(first.report).toMatchObject({ limitCounted: 2, limitNotCounted: 0 });
      expect(first.stderr).toContain("2 counted against their links' click limits");
      expect(await redis.get(clickLimitKey(links.limited!.id))).toBe("2");
      const again = await replay(log);
      expect(again.report).toMatchObject({ limitCounted: 0, limitNotCounted: 0 });
      expect(await redis.get(clickLimitKey(links.limited!.id))).toBe("2");
    } finally {
      redis.disconnect();
    }
    // The stack's redirect lets the third visit through and refuses the fourth.
    const redirect = (path: string) =>
      fetch(`${stack.env.PUBLIC_BASE_URL}${path}`, {
        redirect: "manual",
        headers: { "user-agent": DESKTOP },
      });
    expect((await redirect(`/${links.limited!.code}`)).status).toBe(302);
    expect((await redirect(`/${links.limited!.code}`)).status).toBe(410);
  }, 180_000);
});
