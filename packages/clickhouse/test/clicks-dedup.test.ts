import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClickHouse, type KurzClickHouse, migrate } from "../src/index.ts";

const database = `t_${randomUUID().replaceAll("-", "")}`;
let ch: KurzClickHouse;

beforeAll(async () => {
  ch = await createClickHouse({ path: ":memory:", database });
  await migrate(ch);
});

afterAll(async () => {
  await ch?.command(`DROP DATABASE IF EXISTS ${database}`);
  await ch?.close();
});

function click(linkId: string, ts: string) {
  return {
    click_id: randomUUID(),
    link_id: linkId,
    account_id: randomUUID(),
    short_code: "abc",
    ts,
    referrer: null,
    country: "DE",
    city: "Berlin",
    device_type: "desktop",
    browser: "Firefox",
    os: "Linux",
    is_bot: 0,
    visitor_hash: 1234567890123,
    host: "kurz.test",
  };
}

describe("clicks deduplicate on click_id (chDB)", () => {
  it("counts a redelivered click once with FINAL and with uniqExact(click_id)", async () => {
    const linkId = randomUUID();
    const once = click(linkId, "2026-11-21T06:12:00.123Z");
    const other = click(linkId, "2026-11-21T09:00:00.000Z");
    // Separate inserts make separate parts, as a redelivery would; merges have not run yet.
    await ch.insert("clicks", [once, other]);
    await ch.insert("clicks", [once]);

    const params = { link: linkId };
    const [stored] = await ch.query("SELECT count() AS n FROM clicks WHERE link_id = {link:UUID}", params);
    expect(stored).toEqual({ n: 3 }); // why plain count() is not the recommended form

    expect(
      await ch.query("SELECT count() AS n FROM clicks FINAL WHERE link_id = {link:UUID}", params),
    ).toEqual([{ n: 2 }]);
    expect(
      await ch.query("SELECT uniqExact(click_id) AS n FROM clicks WHERE link_id = {link:UUID}", params),
    ).toEqual([{ n: 2 }]);
    expect(
      await ch.query(
        "SELECT toDate(ts) AS day, count() AS n FROM clicks FINAL WHERE link_id = {link:UUID} " +
          "AND ts >= {from:DateTime64(3, 'UTC')} GROUP BY day",
        { ...params, from: new Date("2026-11-21T00:00:00Z") },
      ),
    ).toEqual([{ day: "2026-11-21", n: 2 }]);
  });

  it("keeps one row per click after parts merge", async () => {
    const linkId = randomUUID();
    const c = click(linkId, "2026-11-20T10:00:00.000Z");
    await ch.insert("clicks", [c]);
    await ch.insert("clicks", [c]);
    await ch.command("OPTIMIZE TABLE clicks FINAL");
    expect(
      await ch.query("SELECT count() AS n FROM clicks WHERE link_id = {link:UUID}", { link: linkId }),
    ).toEqual([{ n: 1 }]);
  });
});

describe("links keep the highest version per link_id", () => {
  it("ignores an older event that arrives after a newer one", async () => {
    const linkId = randomUUID();
    const base = {
      link_id: linkId,
      account_id: randomUUID(),
      short_code: "abc",
      original_url: "https://example.com/",
      is_active: 1,
      deleted: 0,
    };
    await ch.insert("links", [{ ...base, title: "new", version: 2, updated_at: "2026-11-21T10:00:00Z" }]);
    await ch.insert("links", [{ ...base, title: "old", version: 1, updated_at: "2026-11-21T09:00:00Z" }]);
    expect(
      await ch.query("SELECT title, version FROM links FINAL WHERE link_id = {link:UUID}", { link: linkId }),
    ).toEqual([{ title: "new", version: 2 }]);
  });
});
