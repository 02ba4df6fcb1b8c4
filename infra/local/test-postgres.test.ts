// ensure_test_postgres (infra/local/lib.sh): `./kurz test`'s own PostgreSQL in memory, made once and
// found again by the next run; left out when the caller names a server or asks for the system's.

import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { getFreePort } from "@kurz/testing";
import pg from "pg";
import { afterAll, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const dir = mkdtempSync(join(tmpdir(), "kurz-test-pg-"));
chmodSync(dir, 0o755); // the server runs as postgres when the tests run as root
const data = join(dir, "pg", "data");

/** Sources lib.sh, runs ensure_test_postgres, and returns the TEST_PG_ADMIN_URL it left. */
function ensure(env: Record<string, string>): string {
  return execFileSync(
    "bash",
    ["-c", 'source infra/local/lib.sh; ensure_test_postgres; echo "$TEST_PG_ADMIN_URL"'],
    {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", ROOT: root, ...env },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    },
  ).trim();
}

afterAll(() => {
  if (existsSync(join(data, "postmaster.pid"))) {
    const stop = [
      "bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)",
      'if [ "$(id -u)" = 0 ]; then set -- runuser -u postgres -- "$bin/pg_ctl" -D "$1"; else set -- "$bin/pg_ctl" -D "$1"; fi',
      '"$@" -m immediate stop',
    ].join("; ");
    execFileSync("bash", ["-c", stop, "stop", data], { stdio: "ignore" });
  }
  rmSync(dir, { recursive: true, force: true });
});

it.runIf(dir.startsWith("/dev/shm/"))(
  "starts a PostgreSQL in memory with fsync off, and the next run finds it running (skipped: no /dev/shm)",
  { timeout: 60_000 },
  async () => {
    const port = await getFreePort();
    const env = { KURZ_TEST_PG_PORT: String(port), KURZ_TEST_PG_DIR: join(dir, "pg") };
    const url = ensure(env);
    expect(url).toBe(`postgresql://postgres@127.0.0.1:${port}/postgres`);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const one = async (sql: string) => Object.values((await client.query(sql)).rows[0])[0];
      expect(await one("SHOW data_directory")).toBe(data);
      expect(await one("SHOW fsync")).toBe("off");
      const started = await one("SELECT pg_postmaster_start_time()");
      expect(ensure(env)).toBe(url);
      expect(await one("SELECT pg_postmaster_start_time()")).toEqual(started);
    } finally {
      await client.end();
    }
  },
);

it.runIf(dir.startsWith("/dev/shm/"))(
  "starts it again after a SIGKILL, and makes it anew when its files cannot be recovered (skipped: no /dev/shm)",
  { timeout: 60_000 },
  async () => {
    const port = await getFreePort();
    const env = { KURZ_TEST_PG_PORT: String(port), KURZ_TEST_PG_DIR: join(dir, "pg") };
    const url = ensure(env);
    const startedAt = async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query("SELECT pg_postmaster_start_time() AS t")).rows[0].t as Date;
      } finally {
        await client.end();
      }
    };
    const first = await startedAt();
    const killServer = () => {
      const pid = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]);
      process.kill(pid, "SIGKILL");
    };
    killServer();
    expect(ensure(env)).toBe(url);
    const second = await startedAt();
    expect(second.getTime()).toBeGreaterThan(first.getTime());
    // A control file gone: the server cannot start on these files, so they are made again.
    killServer();
    rmSync(join(data, "global", "pg_control"));
    expect(ensure(env)).toBe(url);
    expect((await startedAt()).getTime()).toBeGreaterThan(second.getTime());
  },
);

it("keeps a server the caller named, or the system's when asked, and starts nothing", () => {
  const named = "postgresql://postgres@127.0.0.1:5432/postgres";
  const unused = join(dir, "unused");
  expect(ensure({ TEST_PG_ADMIN_URL: named, KURZ_TEST_PG_DIR: unused })).toBe(named);
  expect(ensure({ KURZ_TEST_PG: "system", KURZ_TEST_PG_DIR: unused })).toBe("");
  expect(existsSync(unused)).toBe(false);
});
