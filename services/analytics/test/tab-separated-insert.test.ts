// The click writer sends its rows to ClickHouse as TabSeparated text (exactly-once-insert.ts): every
// value a visitor controls (referrer, host, short code) and every enriched one must be stored exactly
// as it came, whatever bytes it holds, and a missing referrer must stay NULL (direct traffic), not
// become the text `\N`.
import { randomUUID } from "node:crypto";
import type { KurzClickHouse } from "@kurz/clickhouse";
import { openMigratedChdb } from "@kurz/testing/migrated-chdb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeClicks } from "../src/ingest/exactly-once-insert.ts";
import { clickRows } from "./click-rows-fixture.ts";

let ch: KurzClickHouse;
beforeAll(async () => {
  ch = await openMigratedChdb();
});
afterAll(async () => {
  await ch?.close();
});

describe("the click writer's TabSeparated rows", () => {
  it("store tabs, line breaks, backslashes, NUL, \\N and non-ASCII text as they came, and null as NULL", async () => {
    const link = randomUUID();
    const odd = ["a\tb", "line\nbreak\r\n", "back\\slash\\", "nul\0byte", "\\N", "Zürich 東京 🙂", ""];
    const rows = clickRows(link, randomUUID(), odd.length + 1).map((row, i) => ({
      ...row,
      referrer: i < odd.length ? `https://ref.example/${odd[i]}` : null,
      city: odd[i] ?? "",
      host: odd[(i + 1) % odd.length]!,
      short_code: odd[(i + 2) % odd.length]!,
    }));
    expect((await writeClicks(ch, [rows])).inserted).toHaveLength(rows.length);

    const stored = await ch.query<{
      id: string;
      referrer: string | null;
      city: string;
      host: string;
      short_code: string;
    }>(
      `SELECT toString(click_id) AS id, referrer, city, host, short_code FROM clicks WHERE link_id = {link:UUID}`,
      { link },
    );
    const byId = new Map(stored.map((r) => [r.id, r]));
    for (const row of rows)
      expect(byId.get(row.click_id)).toEqual({
        id: row.click_id,
        referrer: row.referrer,
        city: row.city,
        host: row.host,
        short_code: row.short_code,
      });
  });

  it("store rows whose text is longer than the body's first estimate, each whole (the body grows)", async () => {
    const link = randomUUID();
    // Three bytes of UTF-8 a character, so a row needs far more than the few hundred bytes a plain click does.
    const rows = clickRows(link, randomUUID(), 40).map((row, i) => ({
      ...row,
      referrer: `https://ref.example/${"東京".repeat(700)}${i}`,
      city: "Zürich",
    }));
    expect((await writeClicks(ch, [rows])).inserted).toHaveLength(rows.length);

    const stored = await ch.query<{ id: string; referrer: string; city: string }>(
      "SELECT toString(click_id) AS id, referrer, city FROM clicks WHERE link_id = {link:UUID}",
      { link },
    );
    expect(new Map(stored.map((r) => [r.id, [r.referrer, r.city]]))).toEqual(
      new Map(rows.map((r) => [r.click_id, [r.referrer, r.city]])),
    );
  });
});
