// `./kurz up` stopped with Ctrl-C as a terminal sends it: SIGINT to the whole foreground process group
// (the supervisor and every service it started). Each service drains and exits 0, and the supervisor's
// own Redis, which carries the bus, is stopped after them: a Redis that took the Ctrl-C itself would go
// first, and analytics' drain would then wait 10 s on the bus and exit 1.
// While it runs, the admin CLI imports next to it (importThroughTheCli), and with Debian's prometheus
// installed it runs with --observability: Prometheus beside it finds every service's target up.
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { getFreePort, getFreePortBase, waitFor } from "@kurz/testing";
import { ensureBundles } from "@kurz/testing/bundles";
import { createMigratedDatabase } from "@kurz/testing/migrated-database";
import { Redis } from "ioredis";
import { afterAll, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const observability = existsSync("/usr/bin/prometheus");
const run = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), "kurz-up-stop-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** The supervisor's bundle, built as `./kurz up` builds it before it runs it (infra/local/up-bundle.ts). */
let supervisorBuilt: Promise<string> | undefined;
const supervisorBundle = () =>
  (supervisorBuilt ??= run(process.execPath, ["--import", "tsx", "infra/local/up-bundle.ts"], {
    cwd: root,
  }).then(() => "infra/local/dist/up.mjs"));

/**
 * `./kurz import` next to this `./kurz up`, given only what the operator gave the stack (no REDIS_URL:
 * both take the stack's Redis from KURZ_REDIS_PORT through infra/local/stack-env.ts). A CLI writing to
 * another Redis leaves a deleted link's tombstone in the stack's, and the same code imported again
 * answers 404 for a day.
 */
async function importThroughTheCli(env: Record<string, string | undefined>, base: number) {
  const cliEnv = { ...env, KURZ_BASE_PORT: String(base) };
  const cli = async (args: string[]) => {
    const { stdout } = await run(process.execPath, ["--import", "tsx", "infra/local/cli.ts", ...args], {
      cwd: root,
      env: cliEnv,
      timeout: 120_000,
    });
    return JSON.parse(stdout.trim().split("\n").at(-1)!);
  };
  const origin = `http://127.0.0.1:${base}`;
  const account = await cli(["accounts:create", "--email", "cli-next-to-up@example.com"]);
  const file = join(dataDir, "links.csv");
  writeFileSync(file, "url,alias\nhttps://example.com/poster,cli-poster\n");
  expect(await cli(["import", "--account", account.email, file])).toMatchObject({
    status: "completed",
    counts: { created: 1 },
  });
  const follow = () => fetch(`${origin}/cli-poster`, { redirect: "manual" });
  expect((await follow()).headers.get("location")).toBe("https://example.com/poster");
  const auth = { authorization: `Bearer ${account.api_key}` };
  const list = (await (await fetch(`${origin}/api/v1/links`, { headers: auth })).json()) as {
    data: { id: string }[];
  };
  const deleted = await fetch(`${origin}/api/v1/links/${list.data[0]!.id}`, {
    method: "DELETE",
    headers: auth,
  });
  expect(deleted.status).toBe(200);
  expect((await follow()).status).toBe(404);
  expect(await cli(["import", "--account", account.email, file])).toMatchObject({
    counts: { created: 1 },
  });
  expect((await follow()).headers.get("location")).toBe("https://example.com/poster");
}

/** Prometheus (`--observability`) scrapes the four services' operational listeners, every one up. */
async function expectTargetsUp(prometheus: string, output: string) {
  expect(output).toContain(`Prometheus                         ${prometheus}`);
  await waitFor(
    async () => {
      const res = await fetch(`${prometheus}/api/v1/targets`).catch(() => null);
      if (!res?.ok) return false;
      const { data } = (await res.json()) as {
        data: { activeTargets: { labels: { job: string }; health: string }[] };
      };
      const up = data.activeTargets.filter((t) => t.health === "up").map((t) => t.labels.job);
      return ["analytics", "gateway", "management", "redirect"].every((job) => up.includes(job));
    },
    { timeoutMs: 60_000, description: "every service's target up in Prometheus" },
  );
}

it("a Ctrl-C stops every service cleanly, and the stack's own Redis after them", {
  timeout: 420_000,
}, async () => {
  const [db, base, redisPort] = await Promise.all([
    createMigratedDatabase("up_stop"),
    getFreePortBase([0, 1, 3, 4, 5, 6, 1000, 1001, 1002, 1003, 1010]),
    getFreePort(),
    ensureBundles(),
  ]);
  const supervisor = await supervisorBundle();
  try {
    const env: Record<string, string | undefined> = {
      ...process.env,
      DATABASE_URL: db.url,
      KURZ_DATA_DIR: dataDir,
      KURZ_REDIS_PORT: String(redisPort),
      KURZ_SKIP_BUILD: "1",
      LOG_LEVEL: "info",
    };
    delete env.REDIS_URL;
    // A process group of its own, as a terminal's foreground job is.
    const up = spawn(
      process.execPath,
      [supervisor, "--base-port", String(base), ...(observability ? ["--observability"] : [])],
      {
        cwd: root,
        env,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    const isUp = new Promise<void>((resolve) => {
      for (const stream of [up.stdout, up.stderr])
        stream.on("data", (d: Buffer) => {
          output += d.toString();
          if (output.includes("Kurz is up.")) resolve();
        });
    });
    const exited = new Promise<number | null>((r) => up.once("exit", (code) => r(code)));
    try {
      const came = await Promise.race([
        isUp.then(() => "up"),
        exited.then(() => "exited"),
        sleep(120_000).then(() => "timeout"),
      ]);
      if (came !== "up") throw new Error(`./kurz up did not come up (${came}):\n${output}`);
      await importThroughTheCli(env, base);
      if (observability) await expectTargetsUp(`http://127.0.0.1:${base + 1010}`, output);
      process.kill(-up.pid!, "SIGINT");
      const code = await Promise.race([exited, sleep(60_000).then(() => "timeout")]);
      expect(code, output).toBe(0);
    } finally {
      if (up.exitCode === null) {
        process.kill(-up.pid!, "SIGKILL");
        // Redis is in a group of its own: not left behind by a failed run.
        try {
          process.kill(Number(readFileSync(join(dataDir, "run", "redis.pid"), "utf8")), "SIGKILL");
        } catch {
          // not started, or gone already
        }
      }
    }
    for (const service of ["management", "analytics", "gateway", "redirect"])
      expect(output, service).toContain(`"service":"${service}","exitCode":0,"msg":"stopped"`);
    expect(output).not.toMatch(/timed out|did not stop within/);
    // Stopped by the supervisor, not left running.
    const redis = new Redis({
      port: redisPort,
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    redis.on("error", () => {});
    await expect(redis.connect()).rejects.toThrow();
    redis.disconnect();
  } finally {
    await db.drop();
  }
});

it("refuses a memory budget too low to run before it starts anything, and says why", async () => {
  const refused = await run(process.execPath, [await supervisorBundle()], {
    cwd: root,
    env: { ...process.env, KURZ_MEMORY_MB: "512", KURZ_DATA_DIR: join(dataDir, "refused") },
    timeout: 60_000,
  }).then(
    () => ({ code: 0, stderr: "" }),
    (err: { code: number; stderr: string }) => err,
  );
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain("KURZ_MEMORY_MB=512 is below 1024");
  // Nothing was started: not even its data directory was made.
  expect(existsSync(join(dataDir, "refused"))).toBe(false);
});
