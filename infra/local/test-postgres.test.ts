// ensure_test_postgres (infra/local/lib.sh): `./kurz test`'s own PostgreSQL in memory, made once and
// found again by the next run; started again after a kill, made anew when its files are broken; left
// out when the caller names a server or asks for the system's.
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { asPostgres, getFreePort } from "@kurz/testing";
import pg from "pg";
import { afterAll, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const dir = mkdtempSync(join(tmpdir(), "kurz-test-pg-"));
chmodSync(dir, 0o755); // the server runs as postgres when the tests run as root
const dataDirs: string[] = [];

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

/** A server of the test's own: its directory and port, and what the test asks of it. */
async function testServer(name: string) {
  const base = join(dir, name);
  const data = join(base, "data");
  dataDirs.push(data);
  const port = await getFreePort();
  const env = { KURZ_TEST_PG_PORT: String(port), KURZ_TEST_PG_DIR: base };
  const url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  return {
    data,
    env,
    url,
    async one(sql: string): Promise<unknown> {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const [row] = (await client.query(sql)).rows;
        return row ? Object.values(row)[0] : undefined;
      } finally {
        await client.end();
      }
    },
    kill(): void {
      process.kill(Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]), "SIGKILL");
    },
  };
}

/** Stops a server left on `data`, if any (pg_ctl as the postgres user when root). */
function stopServer(data: string): void {
  if (existsSync(join(data, "postmaster.pid"))) {
    execFileSync(...asPostgres("pg_ctl", ["-D", data, "-m", "immediate", "stop"]), { stdio: "ignore" });
  }
}

afterAll(() => {
  for (const data of dataDirs) stopServer(data);
  rmSync(dir, { recursive: true, force: true });
});

/** A test of the server itself, which runs only where the scratch is in memory (as ./kurz test's is). */
const inMemory = (title: string, fn: () => Promise<void>) =>
  it.runIf(dir.startsWith("/dev/shm/"))(
    `${title} (skipped: the run's scratch is not in memory)`,
    { timeout: 60_000 },
    fn,
  );

/** A server of the test's own, made and started by ensure_test_postgres. */
async function startedServer(name: string) {
  const server = await testServer(name);
  expect(ensure(server.env)).toBe(server.url);
  return server;
}

// One server for both tests of it (an initdb and a start apiece, the most of this file's time): the
// first only reads it; the second kills it and lets ensure_test_postgres start and remake it.
let made: ReturnType<typeof startedServer> | undefined;
const theServer = () => {
  made ??= startedServer("server");
  return made;
};

inMemory("starts a PostgreSQL in memory with fsync off, and the next run finds it running", async () => {
  const server = await theServer();
  expect(await server.one("SHOW data_directory")).toBe(server.data);
  expect(await server.one("SHOW fsync")).toBe("off");
  const started = await server.one("SELECT pg_postmaster_start_time()");
  expect(ensure(server.env)).toBe(server.url);
  expect(await server.one("SELECT pg_postmaster_start_time()")).toEqual(started);
});

inMemory(
  "starts it again after a SIGKILL, and makes it anew when its files cannot be recovered",
  async () => {
    const server = await theServer();
    await server.one("CREATE DATABASE kept");
    const startedAt = async () => (await server.one("SELECT pg_postmaster_start_time()")) as Date;
    const first = await startedAt();
    server.kill();
    expect(ensure(server.env)).toBe(server.url);
    const second = await startedAt();
    expect(second.getTime()).toBeGreaterThan(first.getTime());
    // Recovered, not made anew: what it held is there.
    expect(await server.one("SELECT count(*)::int FROM pg_database WHERE datname = 'kept'")).toBe(1);
    // Its control file gone, the server cannot start on these files: they are made again.
    server.kill();
    rmSync(join(server.data, "global", "pg_control"));
    expect(ensure(server.env)).toBe(server.url);
    expect((await startedAt()).getTime()).toBeGreaterThan(second.getTime());
    expect(await server.one("SELECT count(*)::int FROM pg_database WHERE datname = 'kept'")).toBe(0);
  },
);

it("keeps a server the caller named, or the system's when asked, and starts nothing", () => {
  const named = "postgresql://postgres@127.0.0.1:5432/postgres";
  const unused = join(dir, "unused");
  expect(ensure({ TEST_PG_ADMIN_URL: named, KURZ_TEST_PG_DIR: unused })).toBe(named);
  expect(ensure({ KURZ_TEST_PG: "system", KURZ_TEST_PG_DIR: unused })).toBe("");
  expect(existsSync(unused)).toBe(false);
});

it("starts nothing on a directory that is not in memory, and leaves the tests on the system's server", async () => {
  // The project's own .data: on disk wherever the clone is.
  const onDisk = mkdtempSync(join(root, ".data", "test-pg-on-disk-"));
  try {
    const port = String(await getFreePort());
    expect(ensure({ KURZ_TEST_PG_DIR: join(onDisk, "pg"), KURZ_TEST_PG_PORT: port })).toBe("");
    expect(existsSync(join(onDisk, "pg"))).toBe(false);
  } finally {
    stopServer(join(onDisk, "pg", "data")); // only if the check failed
    rmSync(onDisk, { recursive: true, force: true });
  }
});
