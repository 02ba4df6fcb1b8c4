import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClickHouse, type KurzClickHouse, migrate } from "../src/index.ts";

const url = process.env.CLICKHOUSE_URL;
const database = `t_${randomUUID().replaceAll("-", "")}`;

// The tests run on embedded chDB, which needs no server (decision 0004); CI or a
// developer with a server sets CLICKHOUSE_URL to run the same checks against it.
describe.skipIf(!url)("ClickHouse server (skipped unless CLICKHOUSE_URL is set)", () => {
  let ch: KurzClickHouse;

  beforeAll(async () => {
    ch = await createClickHouse({
      url,
      database,
      username: process.env.CLICKHOUSE_USER,
      password: process.env.CLICKHOUSE_PASSWORD,
    });
  });

  afterAll(async () => {
    await ch?.command(`DROP DATABASE IF EXISTS ${database}`);
    await ch?.close();
  });

  it("creates the database, pings and pins the same settings as chDB", async () => {
    expect(ch.kind).toBe("server");
    await ch.ping();
    expect(await ch.query("SELECT currentDatabase() AS db")).toEqual([{ db: database }]);
    const rows = await ch.query<{ name: string; value: string }>(
      "SELECT name, value FROM system.settings WHERE name IN ('output_format_json_quote_64bit_integers', " +
        "'mutations_sync', 'date_time_input_format') ORDER BY name",
    );
    expect(rows).toEqual([
      { name: "date_time_input_format", value: "best_effort" },
      { name: "mutations_sync", value: "2" },
      { name: "output_format_json_quote_64bit_integers", value: "0" },
    ]);
  });

  it("migrates idempotently and counts a redelivered click once", async () => {
    expect((await migrate(ch)).applied).toEqual(["0011_baseline.sql", "0012_click_destination.sql"]);
    expect(await migrate(ch)).toEqual({ applied: [], views: [] });
    const row = {
      click_id: randomUUID(),
      link_id: randomUUID(),
      account_id: randomUUID(),
      short_code: "abc",
      ts: "2026-11-21T06:12:00.123Z",
      referrer: null,
      country: "",
      city: "",
      device_type: "desktop",
      browser: "Firefox",
      os: "Linux",
      is_bot: 0,
      visitor_hash: 1,
      host: "kurz.test",
    };
    await ch.insert("clicks", [row]);
    await ch.insert("clicks", [row]);
    expect(
      await ch.query("SELECT count() AS n FROM clicks FINAL WHERE link_id = {link:UUID}", {
        link: row.link_id,
      }),
    ).toEqual([{ n: 1 }]);
    expect(
      await ch.query("SELECT {at:DateTime64(3, 'UTC')} AS at", { at: new Date("2026-11-21T06:12:00.123Z") }),
    ).toEqual([{ at: "2026-11-21 06:12:00.123" }]);
  });
});

describe("createClickHouse with a server URL nobody answers", () => {
  it("rejects instead of returning a client that fails later", async () => {
    const probe = createServer().listen(0, "127.0.0.1");
    await once(probe, "listening");
    const { port } = probe.address() as { port: number };
    probe.close();
    await once(probe, "close");

    await expect(createClickHouse({ url: `http://127.0.0.1:${port}` })).rejects.toThrow(/ECONNREFUSED/);
  });
});
