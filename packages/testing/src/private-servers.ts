// A Postgres and a Redis of a suite's own, on free loopback ports in temporary directories: stopping
// them harms nobody (the machine's shared servers carry other engineers' tests), and a benchmark can
// hold them to a memory limit with the stack (the fault suite; `./kurz bench footprint --server-mb`).
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { getFreePort } from "./net.ts";
import { asPostgres } from "./postgres-tools.ts";
import { waitFor } from "./wait.ts";

export interface PrivatePostgres {
  adminUrl: string;
  /** The server's first process, which starts every other (its data directory's postmaster.pid). */
  postmasterPid(): number;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(tmpdir(), "kurz-private-pg-"));
  chmodSync(dir, 0o755);
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, "data");
  const port = await getFreePort();
  const run = (tool: string, args: string[]) => {
    const [cmd, argv] = asPostgres(tool, args);
    execFileSync(cmd, argv, { stdio: "ignore", cwd: dir });
  };
  run("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync"]);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const ctl = (...args: string[]) =>
    run("pg_ctl", ["-D", data, "-l", join(dir, "log"), "-o", options, "-w", ...args]);
  ctl("start");
  return {
    adminUrl: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    postmasterPid: () => Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]),
    async restart() {
      ctl("restart", "-m", "fast");
    },
    async stop() {
      try {
        ctl("stop", "-m", "immediate");
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

export interface PrivateRedis {
  url: string;
  /** Stops the server (its append-only file keeps the streams), for `ms`, then starts it again. */
  outage(ms: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const dir = mkdtempSync(join(tmpdir(), "kurz-private-redis-"));
  const port = await getFreePort();
  const start = async () => {
    spawn(
      "redis-server",
      [
        "--bind",
        "127.0.0.1",
        "--port",
        String(port),
        "--dir",
        dir,
        "--appendonly",
        "yes",
        "--appendfsync",
        "everysec",
        "--save",
        "",
        "--daemonize",
        "yes",
        "--logfile",
        join(dir, "log"),
      ],
      { stdio: "ignore" },
    );
    // A failed ping (not up yet) throws, which waitFor takes for "not yet".
    await waitFor(
      () => execFileSync("redis-cli", ["-p", String(port), "ping"], { encoding: "utf8" }).trim() === "PONG",
      { description: "the private redis to start" },
    );
  };
  const shutdown = () => {
    try {
      execFileSync("redis-cli", ["-p", String(port), "shutdown"], { stdio: "ignore" });
    } catch {
      // already gone (redis-cli reports the closed connection as an error)
    }
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    async outage(ms) {
      shutdown();
      await sleep(ms); // the outage's length is the fault
      await start();
    },
    async stop() {
      shutdown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
