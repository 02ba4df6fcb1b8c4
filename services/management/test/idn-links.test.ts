// An account whose links point to IDN hosts, escaped and odd-but-valid URLs, through the real stack:
// created one by one and in bulk, listed again and again (each answer checked against its response
// schema, so the URL check runs thousands of times, past V8's optimisation), exported, and followed.
// `URL.canParse` answered false for such URLs once optimised, which made create and every later list
// of the account answer 500 (decision 0010).
import { toLocation } from "@kurz/contracts";
import { beforeAll, describe, expect, it } from "vitest";
import {
  createTestAccount,
  expectV1Success,
  useLinksStack,
  type V1Caller,
  v1Caller,
} from "./links-helpers.ts";

/** Destinations as people send them, and the Location a browser gets for each. */
const DESTINATIONS: [url: string, location: string][] = [
  ["https://münchen.de/", "https://xn--mnchen-3ya.de/"],
  ["https://bäckerei.example/brot", "https://xn--bckerei-5wa.example/brot"],
  [
    "https://straße.example/Grüße?ä=ö#ü",
    "https://xn--strae-oqa.example/Gr%C3%BC%C3%9Fe?%C3%A4=%C3%B6#%C3%BC",
  ],
  ["https://例え.テスト/パス", "https://xn--r8jz45g.xn--zckzah/%E3%83%91%E3%82%B9"],
  ["https://example.com/a%20b?q=%E2%82%AC", "https://example.com/a%20b?q=%E2%82%AC"],
  ["https://example.com/100%", "https://example.com/100%25"],
  ['https://example.com/?q={"a":1}&x=<y>', "https://example.com/?q=%7B%22a%22:1%7D&x=%3Cy%3E"],
  ["https://example.com/a b|c", "https://example.com/a%20b%7Cc"],
  ["HTTPS://Example.COM/A/../b", "HTTPS://Example.COM/A/../b"],
];
const LINKS = 100;
const LISTS = 40;

// No title fetches: what is proven here is each URL's way through the API, not a fetch; with them, the
// hundred creates would each go out to the network for a real site's page (seconds in all).
const bed = useLinksStack({ TITLE_FETCH_ENABLED: "false" });
let api: V1Caller;
const made: { id: string; short_code: string; url: string; location: string }[] = [];

beforeAll(async () => {
  api = v1Caller(bed.stack, (await createTestAccount(bed.prisma, "idn")).api_key);
});

describe("an account holding IDN and odd-but-valid links", () => {
  it("creates them one by one and in bulk, each answered with the URL as sent", async () => {
    for (const [url, location] of DESTINATIONS) {
      const res = await api("POST", "/links", { url });
      expectV1Success(res, 201);
      expect(res.body.data.original_url).toBe(url);
      made.push({ id: res.body.data.id, short_code: res.body.data.short_code, url, location });
    }
    const rest = Array.from(
      { length: LINKS - made.length },
      (_, i) => DESTINATIONS[i % DESTINATIONS.length]!,
    );
    for (let at = 0; at < rest.length; at += 50) {
      const batch = rest.slice(at, at + 50);
      const res = await api("POST", "/links/bulk", { links: batch.map(([url]) => ({ url })) });
      expectV1Success(res, 201);
      expect(res.body.data.failed).toEqual([]);
      res.body.data.success.forEach(
        (item: { id: string; short_code: string; original_url: string }, i: number) => {
          const [url, location] = batch[i]!;
          expect(item.original_url).toBe(url);
          made.push({ id: item.id, short_code: item.short_code, url, location });
        },
      );
    }
    expect(made).toHaveLength(LINKS);
  });

  it(`lists them, ${LISTS} times over (${LINKS * LISTS} URL checks), and gets each one`, async () => {
    for (let i = 0; i < LISTS; i++) {
      const res = await api("GET", `/links?per_page=${LINKS}`);
      expectV1Success(res);
      expect(res.body.data, `list ${i}`).toHaveLength(LINKS);
    }
    for (const link of made.slice(0, DESTINATIONS.length)) {
      const res = await api("GET", `/links/${link.id}`);
      expectV1Success(res);
      expect(res.body.data.original_url).toBe(link.url);
    }
  });

  it("exports them as sent, in JSON and CSV", async () => {
    const json = await api("GET", "/exports/links?format=json");
    expect(json.status).toBe(200);
    const rows = json.body as { short_code: string; original_url: string }[];
    expect(new Map(rows.map((r) => [r.short_code, r.original_url]))).toEqual(
      new Map(made.map((m) => [m.short_code, m.url])),
    );
    const csv = await api("GET", "/exports/links");
    expect(csv.status).toBe(200);
    const text = csv.body as string;
    expect(text).toContain("https://münchen.de/");
    expect(text).toContain("https://例え.テスト/パス");
  });

  it("redirects each to its Location form, which management wrote into the redirect's record", async () => {
    for (const link of made.slice(0, DESTINATIONS.length)) {
      expect(toLocation(link.url)).toBe(link.location);
      expect(((await bed.redirectRecord(link.short_code)) as { url: string }).url).toBe(link.location);
      const res = await fetch(`${bed.stack.origin}/${link.short_code}`, { redirect: "manual" });
      expect(res.status, link.url).toBe(302);
      expect(res.headers.get("location"), link.url).toBe(link.location);
    }
  });
});
