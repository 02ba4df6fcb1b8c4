import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ChdbPathLockedError, createClickHouse } from "../src/index.ts";

const dir = mkdtempSync(join(tmpdir(), "kurz-chdb-path-"));
let holder: ChildProcess | undefined;

afterAll(() => {
  holder?.kill();
  rmSync(dir, { recursive: true, force: true });
});

describe("createClickHouse on embedded chDB with a data directory", () => {
  it("creates the default database and keeps data across reopening", async () => {
    const first = await createClickHouse({ path: dir });
    expect(first.database).toBe("kurz");
    await first.command("CREATE TABLE kept (id UInt32) ENGINE = MergeTree ORDER BY id");
    await first.insert("kept", [{ id: 7 }]);
    await first.close();

    const second = await createClickHouse({ path: dir });
    try {
      expect(await second.query("SELECT id FROM kept")).toEqual([{ id: 7 }]);
    } finally {
      await second.close();
    }
  });

  it("explains a directory held by another process, then opens it once released", async () => {
    const fixture = join(import.meta.dirname, "fixtures", "hold-chdb-path.mjs");
    holder = spawn(process.execPath, [fixture, dir], { stdio: ["pipe", "pipe", "inherit"] });
    const exited = once(holder, "exit").then(() => {
      throw new Error("the process holding the directory exited early");
    });
    const [ready] = await Promise.race([once(holder.stdout!, "data"), exited]);
    expect(String(ready)).toContain("READY");

    const err = await createClickHouse({ path: dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChdbPathLockedError);
    expect((err as Error).message).toContain(
      "another process has CLICKHOUSE_PATH open; stop it or set CLICKHOUSE_URL",
    );
    expect((err as ChdbPathLockedError).pid).toBe(holder.pid);

    holder.stdin!.end();
    await exited.catch(() => {});
    expect(existsSync(join(dir, "status"))).toBe(false);

    const reopened = await createClickHouse({ path: dir });
    try {
      await expect(reopened.ping()).resolves.toBeUndefined();
    } finally {
      await reopened.close();
    }
  });
});
