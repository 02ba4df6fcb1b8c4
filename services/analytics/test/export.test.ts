// GET /api/v1/exports/analytics end to end: real clicks through the redirect, the rollups in embedded
// ClickHouse, the CSV streamed back through the gateway (which routes /exports/analytics here).
import { randomUUID } from "node:crypto";
import { printProcessOutputOnFailure, waitFor, withUtcDayLeft } from "@kurz/testing";
import { type Stack, startStack } from "@kurz/testing/stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Account, type LinkData, publicApi } from "./support/public-api.ts";

printProcessOutputOnFailure();

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ inProcess: true, extraEnv: { TRUST_PROXY: "2" } });
});
afterAll(async () => {
  await stack?.stop();
});

const get = (a: Account, path: string) =>
  fetch(`${stack.origin}${path}`, { headers: { authorization: `Bearer ${a.api_key}` } });

const { createLink } = publicApi(() => stack);

const click = async (shortUrl: string, ua: string, referer?: string) => {
  const res = await fetch(shortUrl, {
    redirect: "manual",
    headers: { "user-agent": ua, "x-forwarded-for": "8.8.8.8", ...(referer ? { referer } : {}) },
  });
  expect(res.status).toBe(302);
};

const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const SLACK = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)";

describe("GET /api/v1/exports/analytics", () => {
  let owner: Account;
  let other: Account;
  let a: LinkData;
  let b: LinkData;
  /** The UTC day of the clicks below, which the export lists them in. */
  let today: string;

  beforeAll(async () => {
    owner = await stack.createAccount(`exp-owner-${randomUUID()}@example.com`);
    other = await stack.createAccount(`exp-other-${randomUUID()}@example.com`);
    a = await createLink(owner, { url: "https://example.com/a", title: "t" });
    b = await createLink(owner, { url: "https://example.com/b", title: "t" });
    ({ day: today } = await withUtcDayLeft(60_000));
    await click(a.short_url, FIREFOX, "https://news.example.org/item");
    await click(a.short_url, FIREFOX, "https://news.example.org/item");
    await click(a.short_url, SLACK);
    await click(b.short_url, FIREFOX);
    await waitFor(
      async () => {
        const text = await (await get(owner, "/api/v1/exports/analytics")).text();
        // The short codes come from the links consumer, which batches (up to 500 ms: decision 0044)
        // and may store a link after its first clicks.
        const ready =
          text.trim().split("\r\n").length === 3 &&
          text.includes(",2,1") &&
          text.includes(`,${a.short_code},`) &&
          text.includes(`,${b.short_code},`);
        return ready ? text : null;
      },
      { timeoutMs: 20_000, intervalMs: 200, description: "clicks and short codes in the export" },
    );
  });

  it("gives clicks per link and day, bots apart", async () => {
    const res = await get(owner, "/api/v1/exports/analytics");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
    const rows = (await res.text()).trim().split("\r\n");
    expect(rows[0]).toBe("link_id,short_code,day,clicks,bot_clicks");
    expect(rows.slice(1).sort()).toEqual(
      [`${a.id},${a.short_code},${today},2,1`, `${b.id},${b.short_code},${today},1,0`].sort(),
    );
  });

  it("breaks clicks down by a dimension, for one link, within a period", async () => {
    const res = await get(
      owner,
      `/api/v1/exports/analytics?dimension=referrer&link_id=${a.id}&start=${today}&end=${today}`,
    );
    expect(res.status).toBe(200);
    const rows = (await res.text()).trim().split("\r\n");
    expect(rows).toEqual([
      "link_id,short_code,day,dimension,value,country,clicks",
      `${a.id},${a.short_code},${today},referrer,https://news.example.org/item,,2`,
    ]);
    const before = await get(owner, "/api/v1/exports/analytics?start=2000-01-01&end=2000-01-02");
    expect((await before.text()).trim()).toBe("link_id,short_code,day,clicks,bot_clicks");
  });

  it("shows nothing of another account's links", async () => {
    const all = await get(other, "/api/v1/exports/analytics");
    expect((await all.text()).trim()).toBe("link_id,short_code,day,clicks,bot_clicks");
    const one = await get(other, `/api/v1/exports/analytics?link_id=${a.id}`);
    expect(one.status).toBe(404);
    expect(((await one.json()) as { error: { code: string } }).error.code).toBe("NOT_FOUND");
  });

  it("refuses an unknown dimension with a validation error", async () => {
    const res = await get(owner, "/api/v1/exports/analytics?dimension=shoe_size");
    expect(res.status).toBe(400);
  });
});
