// `./kurz import` next to a running stack: the CLI (infra/local/cli.ts, as ./kurz runs it) takes the
// stack's settings from the one place that knows them (infra/local/stack-env.ts), so its links and
// their Redis records land where the stack serves from. The stack here has a Redis of its own on a
// free port, as `./kurz up` has (6380 by default), told to the CLI only as KURZ_REDIS_PORT: a CLI that
// fell back to another Redis would leave a deleted link's tombstone in the stack's, and the re-imported
// link would answer 404. The CLI runs as the operator's separate process; the stack it runs next to
// can be in this one, since what crosses between them is only Postgres and Redis.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { getFreePort, printProcessOutputOnFailure, type StartedProcess, startProcess } from "@kurz/testing";
import { type Stack, startStack } from "@kurz/testing/stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localStackEnv } from "../../infra/local/stack-env.ts";
import {
  kuttDir,
  kuttPages,
  type PeerReplay,
  startPeerReplay,
} from "../../services/management/test/peer-replay.ts";
import { api, raw, uniqueEmail } from "../security/attack.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const run = promisify(execFile);
// Each CLI run starts management's CLI bundle (after tsx loads the launcher; the first one may build the
// bundle): a few seconds on an idle machine, a minute on a loaded one.
const CLI_TIMEOUT_MS = 120_000;

printProcessOutputOnFailure();

let redis: StartedProcess;
let redisPort: number;
let stack: Stack;
let dir: string;
let peer: PeerReplay;
const KUTT_KEY = "kutt-key-cli-5a4b3c2d1e0f";

beforeAll(async () => {
  redisPort = await getFreePort();
  redis = await startProcess({
    cmd: "redis-server",
    args: ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    readyLine: /Ready to accept connections/,
  });
  stack = await startStack({
    inProcess: true,
    extraEnv: { REDIS_URL: localStackEnv({ KURZ_REDIS_PORT: String(redisPort) }).REDIS_URL! },
  });
  dir = mkdtempSync(join(tmpdir(), "kurz-cli-stack-"));
  peer = await startPeerReplay(KUTT_KEY, "unused-signature");
}, 180_000);

afterAll(async () => {
  await peer?.close();
  await stack?.stop();
  await redis?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** `./kurz import …` as the script runs it, with the stack's database and only KURZ_REDIS_PORT for Redis. */
async function cliRun(email: string, args: string[], env: Record<string, string> = {}) {
  const { REDIS_URL: _stacks, ...stackEnv } = stack.env;
  const { REDIS_URL: _callers, ...callerEnv } = process.env;
  return run(
    process.execPath,
    ["--import", "tsx", "infra/local/cli.ts", "import", "--account", email, ...args],
    {
      cwd: ROOT,
      env: { ...callerEnv, ...stackEnv, KURZ_REDIS_PORT: String(redisPort), ...env },
      timeout: CLI_TIMEOUT_MS,
    },
  );
}

async function cliImport(email: string, file: string, ...options: string[]) {
  const { stdout } = await cliRun(email, [file, ...options]);
  return JSON.parse(stdout.trim().split("\n").at(-1)!);
}

describe("the CLI and the stack it runs next to", () => {
  it("name the same Redis, Postgres and origin, and the operator's variables win", () => {
    const stackEnv = localStackEnv({});
    expect(stackEnv.REDIS_URL).toBe("redis://127.0.0.1:6380");
    expect(stackEnv.DATABASE_URL).toBe("postgresql://postgres@127.0.0.1:5432/kurz");
    expect(stackEnv.PUBLIC_BASE_URL).toBe("http://127.0.0.1:8080");
    const given = localStackEnv({ REDIS_URL: "redis://redis.internal:7000", KURZ_BASE_PORT: "18080" });
    expect(given.REDIS_URL).toBe("redis://redis.internal:7000");
    expect(given.PUBLIC_BASE_URL).toBe("http://127.0.0.1:18080");
  });

  it("imports links that redirect through the public origin, also after a delete and a re-import", {
    timeout: 3 * CLI_TIMEOUT_MS,
  }, async () => {
    const user = await stack.createAccount(uniqueEmail("cli-stack"));
    const call = api(stack, user.api_key);
    const file = join(dir, "links.csv");
    writeFileSync(
      file,
      "url,alias\nhttps://example.com/poster-a,cli-poster-a\nhttps://example.org/poster-b?x=1,cli-poster-b\n",
    );
    const first = await cliImport(user.email, file);
    expect(first).toMatchObject({ status: "completed", counts: { created: 2 } });

    const follow = (code: string) => raw(stack.origin, "GET", `/${code}`);
    const a = await follow("cli-poster-a");
    expect(a.status).toBeGreaterThanOrEqual(301);
    expect(a.status).toBeLessThanOrEqual(308);
    expect(a.headers.location).toBe("https://example.com/poster-a");
    expect((await follow("cli-poster-b")).headers.location).toBe("https://example.org/poster-b?x=1");

    // Delete one: the stack's Redis now holds its tombstone, and the link answers 404.
    const list = await call("GET", "/api/v1/links?limit=100");
    const link = (list.body.data as { id: string; short_code: string }[]).find(
      (l) => l.short_code === "cli-poster-a",
    )!;
    expect((await call("DELETE", `/api/v1/links/${link.id}`)).status).toBe(200);
    expect((await follow("cli-poster-a")).status).toBe(404);

    // The same file again: the deleted code is the account's own, so it is created again and the CLI
    // replaces the tombstone in the stack's Redis; the other row is there already.
    const second = await cliImport(user.email, file);
    expect(second).toMatchObject({ status: "completed", counts: { created: 1 } });
    const again = await follow("cli-poster-a");
    expect(again.headers.location).toBe("https://example.com/poster-a");
    expect((await follow("cli-poster-b")).headers.location).toBe("https://example.org/poster-b?x=1");
  });
  it("imports to Postgres at once when Redis is not reachable, and the links redirect through the miss path", {
    timeout: CLI_TIMEOUT_MS,
  }, async () => {
    const user = await stack.createAccount(uniqueEmail("cli-no-redis"));
    const file = join(dir, "unreachable.csv");
    writeFileSync(file, "url,alias\nhttps://example.com/offline,cli-offline\n");
    const closed = await getFreePort();
    const { stdout, stderr } = await cliRun(user.email, [file], { KURZ_REDIS_PORT: String(closed) });
    expect(stderr).toMatch(/warning: Redis \(REDIS_URL\) is not reachable/);
    expect(JSON.parse(stdout.trim().split("\n").at(-1)!)).toMatchObject({
      status: "completed",
      counts: { created: 1 },
    });
    // No record was written: the redirect's miss path makes it from Postgres.
    const followed = await raw(stack.origin, "GET", "/cli-offline");
    expect(followed.headers.location).toBe("https://example.com/offline");
  });
  // The next two run side by side (each on an account of its own): a CLI run is mostly a process
  // starting, and only the Kutt import reads the recorded Kutt.
  it.concurrent("imports every link of a running Kutt in one command, page by page, and says what a wrong key got", {
    timeout: 3 * CLI_TIMEOUT_MS,
  }, async () => {
    // The recorded Kutt answers (peer-replay.ts): 50 links a page whatever is asked, then its total.
    const pages = [...kuttPages().values()].map((b) => JSON.parse(b.toString()));
    const total = pages[0].total as number;
    const user = await stack.createAccount(uniqueEmail("cli-kutt"));
    const from = peer.requests.length;
    const { stdout, stderr } = await cliRun(user.email, ["--from-kutt", peer.origin], {
      KUTT_API_KEY: KUTT_KEY,
    });
    const job = JSON.parse(stdout.trim().split("\n").at(-1)!);
    expect(job).toMatchObject({ status: "completed", format: "kutt", counts: { total, processed: total } });
    expect(peer.requests.slice(from).map((u) => Number(u.searchParams.get("skip")))).toEqual(
      pages.map((_, i) => i * 50),
    );
    expect(stderr).toContain(`Kutt: read ${total} of ${total} links`);
    expect(stdout + stderr).not.toContain(KUTT_KEY);

    // A plain recorded link redirects where Kutt itself sent it.
    const served = JSON.parse(readFileSync(join(kuttDir, "destinations.json"), "utf8")).codes;
    const plain = pages[0].data.find(
      (l: { address: string; password: boolean; target: string }) =>
        /^[A-Za-z0-9]{6}$/.test(l.address) && !l.password && /^https:\/\/[\x21-\x7e]+$/.test(l.target),
    );
    expect((await raw(stack.origin, "GET", `/${plain.address}`)).headers.location).toBe(
      served[plain.address].location,
    );

    const wrong = await cliRun(user.email, [
      "--from-kutt",
      peer.origin,
      "--kutt-key",
      "wrong-key-778899",
    ]).then(
      () => undefined,
      (err: { code: number; stdout: string; stderr: string }) => err,
    );
    expect(wrong?.code).not.toBe(0);
    expect(wrong?.stderr).toContain(`Kutt at ${peer.origin}/api/v2/links answered 401: Unauthorized.`);
    expect(`${wrong?.stdout}${wrong?.stderr}`).not.toContain("wrong-key-778899");
  });

  it.concurrent("keeps a peer's codes, renames Kurz's own paths with --rename-reserved, refuses a domain not the account's", {
    timeout: 3 * CLI_TIMEOUT_MS,
  }, async () => {
    const user = await stack.createAccount(uniqueEmail("cli-codes"));
    const file = join(dir, "yourls.csv");
    const kept = `k_${Date.now().toString(36)}`;
    writeFileSync(file, `keyword,url\nhelp,https://example.com/help\n${kept},https://example.com/kept\n`);
    const job = await cliImport(user.email, file, "--rename-reserved", "yourls");
    expect(job).toMatchObject({
      status: "completed",
      rename_reserved: "yourls",
      counts: { created: 2, failed: 0 },
      renamed: 1,
      renamed_preview: [{ row: 1, code: "help", short_code: "yourls-help" }],
    });
    const follow = (code: string) => raw(stack.origin, "GET", `/${code}`);
    expect((await follow("yourls-help")).headers.location).toBe("https://example.com/help");
    expect((await follow(kept)).headers.location).toBe("https://example.com/kept");

    const refused = cliImport(user.email, file, "--domain", "go.not-theirs.test");
    await expect(refused).rejects.toThrow(/Not a branded domain of your account/);
  });
});
