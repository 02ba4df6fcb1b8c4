// The destination of a click (migrations/0012_click_destination.sql) on a database that ran only the
// baseline and already holds clicks: the upgrade gives the stored clicks the default, and the
// re-created views keep a breakdown row only for a click sent elsewhere.
import { randomUUID } from "node:crypto";
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BASELINE_FILE } from "../src/baseline-adoption.ts";
import { createClickHouse, type KurzClickHouse, MIGRATIONS_DIR, migrate } from "../src/index.ts";

let ch: KurzClickHouse;
let baselineOnly = "";

beforeAll(async () => {
  ch = await createClickHouse({ path: ":memory:", database: `t_${randomUUID().replaceAll("-", "")}` });
  baselineOnly = await mkdtemp(join(tmpdir(), "kurz-ch-destination-"));
  await copyFile(join(MIGRATIONS_DIR, BASELINE_FILE), join(baselineOnly, BASELINE_FILE));
});

afterAll(async () => {
  await ch?.command(`DROP DATABASE IF EXISTS ${ch.database}`);
  await ch?.close();
  if (baselineOnly) await rm(baselineOnly, { recursive: true, force: true });
});

const link = randomUUID();
const account = randomUUID();
const click = (id: string, ts: string) => ({
  click_id: id,
  link_id: link,
  account_id: account,
  short_code: "d",
  ts,
  referrer: null,
  country: "US",
  city: "",
  device_type: "desktop",
  browser: "Firefox",
  os: "Linux",
  is_bot: 0,
  visitor_hash: "7",
  host: "kurz.test",
});

describe("upgrading a database that holds clicks", () => {
  it("adds the column with the default, and the views store only destinations other than it", async () => {
    expect((await migrate(ch, { migrations: baselineOnly })).applied).toEqual([BASELINE_FILE]);
    const before = "01900000-0000-7000-8000-000000000001";
    await ch.insert("clicks", [click(before, "2026-03-10 09:00:00.000")]);

    const result = await migrate(ch);
    expect(result.applied[0]).toBe("0012_click_destination.sql");
    expect(result.views).toContain("click_feed_mv");
    expect(await migrate(ch)).toEqual({ applied: [], views: [] });

    const after = "01900000-0000-7000-8000-000000000002";
    const plain = "01900000-0000-7000-8000-000000000003";
    await ch.insert("clicks", [
      { ...click(after, "2026-03-10 10:00:00.000"), destination: "rule:2" },
      click(plain, "2026-03-10 11:00:00.000"),
    ]);
    expect(
      await ch.query(
        "SELECT toString(click_id) AS id, destination FROM clicks FINAL WHERE link_id = {link:UUID} ORDER BY id",
        { link },
      ),
    ).toEqual([
      { id: before, destination: "default" },
      { id: after, destination: "rule:2" },
      { id: plain, destination: "default" },
    ]);
    expect(
      await ch.query(
        `SELECT value, sum(clicks) AS n FROM link_dim_total
         WHERE link_id = {link:UUID} AND dim = 'destination' GROUP BY value`,
        { link },
      ),
    ).toEqual([{ value: "rule:2", n: 1 }]);
    // Day and hour level: one row each, for the one click sent by a rule. (Click rows of a day this
    // old are past link_stats' TTL, which applies as they are written.)
    expect(
      await ch.query(
        `SELECT toString(level) AS level, b, sum(n) AS n FROM link_stats
         WHERE link_id = {link:UUID} AND kind = 'd' AND a = 'destination' AND level != 'click'
         GROUP BY level, b ORDER BY level`,
        { link },
      ),
    ).toEqual([
      { level: "day", b: "rule:2", n: 1 },
      { level: "hour", b: "rule:2", n: 1 },
    ]);
  });
});
