import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { useMigratedChDb } from "./migrated-chdb.ts";

const chdb = useMigratedChDb();

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
    await chdb().insert("clicks", [once, other]);
    await chdb().insert("clicks", [once]);

    const params = { link: linkId };
    const [stored] = await chdb().query(
      "SELECT count() AS n FROM clicks WHERE link_id = {link:UUID}",
      params,
    );
    expect(stored).toEqual({ n: 3 }); // why plain count() is not the recommended form

    expect(
      await chdb().query("SELECT count() AS n FROM clicks FINAL WHERE link_id = {link:UUID}", params),
    ).toEqual([{ n: 2 }]);
    expect(
      await chdb().query("SELECT uniqExact(click_id) AS n FROM clicks WHERE link_id = {link:UUID}", params),
    ).toEqual([{ n: 2 }]);
    expect(
      await chdb().query(
        "SELECT toDate(ts) AS day, count() AS n FROM clicks FINAL WHERE link_id = {link:UUID} " +
          "AND ts >= {from:DateTime64(3, 'UTC')} GROUP BY day",
        { ...params, from: new Date("2026-11-21T00:00:00Z") },
      ),
    ).toEqual([{ day: "2026-11-21", n: 2 }]);
  });

  it("keeps one row per click after parts merge", async () => {
    const linkId = randomUUID();
    const c = click(linkId, "2026-11-20T10:00:00.000Z");
    await chdb().insert("clicks", [c]);
    await chdb().insert("clicks", [c]);
    await chdb().command("OPTIMIZE TABLE clicks FINAL");
    expect(
      await chdb().query("SELECT count() AS n FROM clicks WHERE link_id = {link:UUID}", { link: linkId }),
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
    await chdb().insert("links", [{ ...base, title: "new", version: 2, updated_at: "2026-11-21T10:00:00Z" }]);
    await chdb().insert("links", [{ ...base, title: "old", version: 1, updated_at: "2026-11-21T09:00:00Z" }]);
    expect(
      await chdb().query("SELECT title, version FROM links FINAL WHERE link_id = {link:UUID}", {
        link: linkId,
      }),
    ).toEqual([{ title: "new", version: 2 }]);
  });
});
