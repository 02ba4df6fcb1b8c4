// A migrated in-memory chDB database of its own for one test file, dropped after the file.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll } from "vitest";
import { createClickHouse, type KurzClickHouse, migrate } from "../src/index.ts";

/** Registers the file's setup and teardown; the returned function gives the client once set up. */
export function useMigratedChDb(): () => KurzClickHouse {
  const database = `t_${randomUUID().replaceAll("-", "")}`;
  let ch: KurzClickHouse | undefined;
  beforeAll(async () => {
    ch = await createClickHouse({ path: ":memory:", database });
    await migrate(ch);
  });
  afterAll(async () => {
    await ch?.command(`DROP DATABASE IF EXISTS ${database}`);
    await ch?.close();
  });
  return () => {
    if (!ch) throw new Error("the chDB database is not set up yet");
    return ch;
  };
}
