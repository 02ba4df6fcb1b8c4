import { readFileSync } from "node:fs";
import { join } from "node:path";

/** Another process holds the chDB data directory (ClickHouse `Code: 76 ... Cannot lock file`). */
export class ChdbPathLockedError extends Error {
  override readonly name = "ChdbPathLockedError";
  constructor(
    readonly path: string,
    readonly pid: number,
    options?: ErrorOptions,
  ) {
    super(
      `chDB data directory ${path} is in use by process ${pid}: another process has CLICKHOUSE_PATH open; ` +
        "stop it or set CLICKHOUSE_URL",
      options,
    );
  }
}

/**
 * chDB reports a locked directory only on stderr ("Code: 76 ... Cannot lock file") and throws a
 * bare "Failed to create connection". The engine writes its PID into `<path>/status` while it
 * holds the lock and removes the file on a clean close, so a live PID there other than ours is
 * the lock holder. A stale file from a crash names a dead PID and leaves the error unchanged.
 */
export function explainChdbOpenError(err: unknown, path: string): unknown {
  const pid = statusPid(path);
  if (pid === undefined || pid === process.pid || !isAlive(pid)) return err;
  return new ChdbPathLockedError(path, pid, { cause: err });
}

function statusPid(path: string): number | undefined {
  if (path === ":memory:") return undefined;
  let status: string;
  try {
    status = readFileSync(join(path, "status"), "utf8");
  } catch {
    return undefined;
  }
  const match = /^PID:\s*(\d+)/m.exec(status);
  return match ? Number(match[1]) : undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
