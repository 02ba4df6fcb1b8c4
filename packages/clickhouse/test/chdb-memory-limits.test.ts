// Embedded chDB opened with memory bounds (`memory`, which analytics sets from CHDB_MEMORY_MB): the
// engine's own bound and its caches are fixed when it starts, and every query, bound or streamed,
// carries the per-query bound. A file of its own: one chDB engine per process, and these are its
// start-up settings.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createClickHouse, type KurzClickHouse } from "../src/index.ts";

const dir = mkdtempSync(join(tmpdir(), "kurz-chdb-limits-"));
const MB = 2 ** 20;
let ch: KurzClickHouse;

beforeAll(async () => {
  ch = await createClickHouse({ path: dir, memory: { engineMb: 200, queryMb: 64, cacheMb: 8 } });
});

afterAll(async () => {
  await ch?.close();
  rmSync(dir, { recursive: true, force: true });
});

it("starts the engine with its memory bound and cache sizes", async () => {
  const rows = await ch.query<{ name: string; value: string }>(
    "SELECT name, value FROM system.server_settings WHERE name IN {names:Array(String)} ORDER BY name",
    {
      names: [
        "max_server_memory_usage",
        "mark_cache_size",
        "index_mark_cache_size",
        "primary_index_cache_size",
      ],
    },
  );
  expect(Object.fromEntries(rows.map((r) => [r.name, Number(r.value)]))).toEqual({
    index_mark_cache_size: 8 * MB,
    mark_cache_size: 8 * MB,
    max_server_memory_usage: 200 * MB,
    primary_index_cache_size: 8 * MB,
  });
});

it("bounds every query, streamed ones too", async () => {
  const sql = "SELECT value FROM system.settings WHERE name = 'max_memory_usage'";
  expect(await ch.query(sql)).toEqual([{ value: String(64 * MB) }]);
  const streamed = [];
  for await (const row of ch.queryRows(sql)) streamed.push(row);
  expect(streamed).toEqual([{ value: String(64 * MB) }]);
});

it("fails a query that needs more than its bound, and the next one runs", async () => {
  await expect(ch.query("SELECT uniqExact(toString(number)) AS n FROM numbers(20000000)")).rejects.toThrow(
    /MEMORY_LIMIT_EXCEEDED|memory limit/i,
  );
  expect(await ch.query("SELECT 1 AS one")).toEqual([{ one: 1 }]);
});
