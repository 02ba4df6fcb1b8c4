import type { LinkRule } from "@kurz/contracts";
import { describe, expect, it } from "vitest";
import { preferredLanguage } from "./accept-language.ts";
import { compileSmartLink } from "./compile.ts";
import { decide, expiredDestination, splitArm } from "./decide.ts";
import { forwardQuery } from "./forward-query.ts";
import { uniformSmartRecord } from "./uniform.ts";
import type { Visitor } from "./visitor.ts";

const NOW = Date.parse("2030-06-15T12:00:00.000Z");
const visitor = (v: Partial<Visitor> = {}): Visitor => ({
  device: "desktop",
  os: "windows",
  browser: "chrome",
  country: "US",
  language: "en-us",
  query: "",
  now: NOW,
  key: 7,
  ...v,
});
const opts = { imageUrl: (id: string) => `https://kurz.test/api/v1/images/${id}` };
const rules: LinkRule[] = [
  { when: { device: ["mobile"], country: ["DE", "AT"] }, url: "https://m.example.de/" },
  { when: { language: ["fr"] }, url: "https://example.fr/" },
  { when: { query: { ref: "tw" } }, url: "https://example.com/twitter" },
  { when: { after: "2030-06-16T00:00:00Z" }, url: "https://example.com/later" },
];

describe("decide", () => {
  const s = compileSmartLink({ rules }, opts);

  it("a plain link goes to its URL", () => {
    expect(compileSmartLink({ rules: [], forward_query: false }, opts)).toBeUndefined();
    expect(decide("https://a.test/", undefined, visitor())).toEqual({
      url: "https://a.test/",
      destination: "default",
      chosen: "https://a.test/",
    });
  });

  it("the first rule whose every condition holds decides", () => {
    expect(decide("https://a.test/", s, visitor({ device: "mobile", country: "AT" }))).toEqual({
      url: "https://m.example.de/",
      destination: "rule:1",
      chosen: "https://m.example.de/",
    });
    // Only one of rule 1's two conditions holds.
    expect(decide("https://a.test/", s, visitor({ device: "mobile", country: "US" })).destination).toBe(
      "default",
    );
    expect(decide("https://a.test/", s, visitor({ language: "fr-ca", device: "mobile" })).destination).toBe(
      "rule:2",
    );
    expect(decide("https://a.test/", s, visitor({ query: "x=1&ref=tw" })).destination).toBe("rule:3");
    expect(decide("https://a.test/", s, visitor({ query: "ref=twx" })).destination).toBe("default");
    // Names are compared decoded: an escaped spelling matches, a longer name does not.
    expect(decide("https://a.test/", s, visitor({ query: "r%65f=tw" })).destination).toBe("rule:3");
    expect(decide("https://a.test/", s, visitor({ query: "xref=tw" })).destination).toBe("default");
  });

  it("decides alike for the record in its uniform shape", () => {
    const u = uniformSmartRecord(s!);
    expect(Object.keys(u)).toEqual(["r", "t", "p", "f", "i", "n", "x", "m", "g"]);
    for (const v of [
      visitor({ device: "mobile", country: "AT" }),
      visitor({ language: "fr" }),
      visitor({ query: "ref=tw" }),
      visitor(),
    ])
      expect(decide("https://a.test/", u, v)).toEqual(decide("https://a.test/", s, v));
  });

  it("a schedule holds from its instant on, on the clock it is given", () => {
    expect(decide("https://a.test/", s, visitor()).destination).toBe("default");
    expect(
      decide("https://a.test/", s, visitor({ now: Date.parse("2030-06-16T00:00:00Z") })).destination,
    ).toBe("rule:4");
  });

  it("an unknown country or OS matches no rule that names one", () => {
    const t = compileSmartLink(
      { rules: [{ when: { country: ["US"], os: ["windows"] }, url: "https://x.test/" }] },
      opts,
    );
    expect(decide("https://a.test/", t, visitor({ country: null })).destination).toBe("default");
    expect(decide("https://a.test/", t, visitor({ os: null })).destination).toBe("default");
  });

  it("app links come before rules, for their platform only", () => {
    const t = compileSmartLink(
      { rules, ios_url: "myapp://item/1", android_url: "https://play.google.com/x" },
      opts,
    );
    expect(decide("https://a.test/", t, visitor({ os: "ios", device: "mobile", country: "DE" }))).toEqual({
      url: "myapp://item/1",
      destination: "ios",
      chosen: "myapp://item/1",
    });
    expect(decide("https://a.test/", t, visitor({ os: "android" })).destination).toBe("android");
    expect(decide("https://a.test/", t, visitor({ os: "macos" })).destination).toBe("default");
  });

  it("a split gives the same visitor the same arm, and visitors in proportion to weights", () => {
    const t = compileSmartLink(
      {
        split: [
          { url: "https://a.test/a", weight: 3 },
          { url: "https://a.test/b", weight: 1 },
        ],
      },
      opts,
    );
    const first = decide("https://a.test/", t, visitor({ key: 12345 }));
    for (let i = 0; i < 5; i++) expect(decide("https://a.test/", t, visitor({ key: 12345 }))).toEqual(first);
    const counts = [0, 0];
    for (let key = 0; key < 4000; key++) counts[splitArm(t!.p!, key * 2654435761)]!++;
    expect(counts[0]! / 4000).toBeCloseTo(0.75, 1);
  });

  it("forwards the visit's query, the destination's own parameters winning", () => {
    const t = compileSmartLink({ forward_query: true }, opts);
    expect(decide("https://a.test/p?a=1#top", t, visitor({ query: "a=2&utm_source=news" }))).toEqual({
      url: "https://a.test/p?a=1&utm_source=news#top",
      destination: "default",
      chosen: "https://a.test/p?a=1#top",
    });
    expect(forwardQuery("https://a.test/p", "")).toBe("https://a.test/p");
    expect(forwardQuery("https://a.test/p#f", "a=1&b")).toBe("https://a.test/p?a=1&b#f");
    expect(forwardQuery("https://a.test/p", "&a=1&&b=2&")).toBe("https://a.test/p?a=1&b=2");
    expect(forwardQuery("https://a.test/p?", "b=1")).toBe("https://a.test/p?b=1");
    expect(forwardQuery("https://a.test/p?utm%5Fsource=x", "utm_source=y")).toBe(
      "https://a.test/p?utm%5Fsource=x",
    );
  });

  it("an expired link goes to its expired URL when it has one", () => {
    expect(expiredDestination(compileSmartLink({ max_clicks: 3 }, opts), visitor())).toBeNull();
    expect(
      expiredDestination(compileSmartLink({ expired_url: "https://a.test/over" }, opts), visitor()),
    ).toBe("https://a.test/over");
  });

  it("compiles previews with the image's public URL", () => {
    expect(
      compileSmartLink({ og: { title: "T", description: null, image: "abcdefghijklmnop" } }, opts)?.g,
    ).toEqual({
      t: "T",
      i: "https://kurz.test/api/v1/images/abcdefghijklmnop",
    });
  });
});

describe("preferredLanguage", () => {
  it("takes the highest q-value, the first of equals", () => {
    expect(preferredLanguage("fr-CH, fr;q=0.9, en;q=0.8")).toBe("fr-ch");
    expect(preferredLanguage("en;q=0.5, de;q=0.9")).toBe("de");
    expect(preferredLanguage("*")).toBeNull();
    expect(preferredLanguage("de;q=0")).toBeNull();
    expect(preferredLanguage(undefined)).toBeNull();
    expect(preferredLanguage("x".repeat(10_000))).toBeNull();
  });
});
