// Smart links through the redirect's real parts (smart-bed.ts): rules, split, forwarding, app links,
// expiry with and without expired_url, the click limit across three instances, previews for fetchers,
// each click's destination on the bus, and hostile requests. Every test passes its own clock.
import { request } from "node:http";
import {
  type ClickEvent,
  domainKey,
  type LinkRule,
  overlayKey,
  type RedirectRecord,
  rotatorKey,
} from "@kurz/contracts";
import { compileSmartLink, type SmartLinkSource } from "@kurz/link-rules";
import { waitFor } from "@kurz/testing";
import { hash } from "@node-rs/argon2";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundledCountryDb } from "../src/config.ts";
import { GeoCountry } from "../src/geo-country.ts";
import { redirectRecord } from "./support/records.ts";
import { type SmartBed, startSmartBed } from "./support/smart-bed.ts";

const UA = {
  chrome:
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
  iphone:
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
  android:
    "Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36",
  mac: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15",
  slack: "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
  facebook: "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
};

const opts = { imageUrl: (id: string) => `https://kurz.test/api/v1/images/${id}` };
let n = 0;
/** A link record with its own id and smart part compiled from `src`. */
const smart = (url: string, src: SmartLinkSource, extra: Partial<RedirectRecord> = {}): RedirectRecord => {
  n++;
  const s = compileSmartLink(src, opts);
  return redirectRecord(url, {
    id: `0190a1b2-0000-7000-8000-${String(5000 + n).padStart(12, "0")}`,
    ...(s ? { s } : {}),
    ...extra,
  });
};

interface Answer {
  status: number;
  location: string | null;
  body: string;
  headers: Headers;
}

async function get(
  base: string,
  path: string,
  headers: Record<string, string> = {},
  method = "GET",
  body?: string,
): Promise<Answer> {
  const res = await fetch(`${base}${path}`, {
    method,
    redirect: "manual",
    headers: { "user-agent": UA.chrome, ...headers },
    ...(body !== undefined ? { body } : {}),
  });
  return {
    status: res.status,
    location: res.headers.get("location"),
    body: await res.text(),
    headers: res.headers,
  };
}

const clicksOf = (bed: SmartBed, linkId: string, count: number): Promise<ClickEvent[]> =>
  waitFor(
    () => {
      const list = bed.clicks.events.filter((e) => e.link_id === linkId);
      return list.length === count ? list : undefined;
    },
    { timeoutMs: 10_000, description: `${count} clicks of ${linkId}` },
  );

// The directory the redirect's configuration names by default: a file per address family.
const countryDb = bundledCountryDb();

describe("one instance, behind one trusted proxy, with the country database", () => {
  let bed: SmartBed;
  beforeAll(async () => {
    bed = await startSmartBed({ name: "smart-links", trustProxy: 1, geo: GeoCountry.open(countryDb) });
  });
  afterAll(() => bed?.stop());

  const rules: LinkRule[] = [
    { when: { device: ["mobile"], os: ["android"] }, url: "https://example.com/android-phone" },
    { when: { os: ["macos"] }, url: "https://example.com/mac" },
    { when: { country: ["GB"] }, url: "https://example.co.uk/" },
    { when: { language: ["de"] }, url: "https://example.de/" },
    { when: { query: { ref: "tw" } }, url: "https://example.com/twitter" },
    { when: { after: "2030-07-01T00:00:00Z" }, url: "https://example.com/july" },
  ];

  it("sends each visitor where the first rule that holds says, and tags the click with it", async () => {
    const record = smart("https://example.com/", { rules });
    await bed.seed("rules1", record);
    const at = (headers: Record<string, string>, q = "") => get(bed.url, `/rules1${q}`, headers);
    expect((await at({ "user-agent": UA.android })).location).toBe("https://example.com/android-phone");
    expect((await at({ "user-agent": UA.mac })).location).toBe("https://example.com/mac");
    expect((await at({ "x-forwarded-for": "81.2.69.160" })).location).toBe("https://example.co.uk/");
    expect((await at({ "x-forwarded-for": "8.8.8.8", "accept-language": "de-AT, en;q=0.5" })).location).toBe(
      "https://example.de/",
    );
    expect((await at({ "accept-language": "en;q=0.5, de;q=0.2" })).location).toBe("https://example.com/");
    expect((await at({}, "?x=1&ref=tw")).location).toBe("https://example.com/twitter");
    const clicks = await clicksOf(bed, record.id, 6);
    expect(clicks.map((c) => c.destination)).toEqual([
      "rule:1",
      "rule:2",
      "rule:3",
      "rule:4",
      undefined,
      "rule:5",
    ]);
    // The click records the address the rule read, from behind the trusted proxy.
    expect(clicks[2]!.ip).toBe("81.2.69.160");
  });

  it("holds a schedule from its instant on the clock it is given", async () => {
    const record = smart("https://example.com/", { rules });
    await bed.seed("sched1", record);
    expect((await get(bed.url, "/sched1")).location).toBe("https://example.com/");
    bed.clock.now = Date.parse("2030-07-01T00:00:00Z");
    try {
      expect((await get(bed.url, "/sched1")).location).toBe("https://example.com/july");
    } finally {
      bed.clock.now = Date.parse("2030-06-15T12:00:00.000Z");
    }
  });

  it("evaluates app links first, for their platform only", async () => {
    const record = smart("https://example.com/", {
      rules,
      ios_url: "myapp://item/1",
      android_url: "https://play.google.com/store/apps/details?id=x",
    });
    await bed.seed("apps1", record);
    expect((await get(bed.url, "/apps1", { "user-agent": UA.iphone })).location).toBe("myapp://item/1");
    expect((await get(bed.url, "/apps1", { "user-agent": UA.android })).location).toBe(
      "https://play.google.com/store/apps/details?id=x",
    );
    expect((await get(bed.url, "/apps1", { "user-agent": UA.mac })).location).toBe("https://example.com/mac");
    const clicks = await clicksOf(bed, record.id, 3);
    expect(clicks.map((c) => c.destination)).toEqual(["ios", "android", "rule:2"]);
  });

  it("gives the same visitor the same split arm, and different visitors both", async () => {
    const record = smart("https://example.com/", {
      split: [
        { url: "https://example.com/a", weight: 1 },
        { url: "https://example.com/b", weight: 1 },
      ],
    });
    await bed.seed("split1", record);
    const seen = new Set<string>();
    for (let i = 1; i <= 20; i++) {
      const headers = { "x-forwarded-for": `198.51.100.${i}` };
      const first = (await get(bed.url, "/split1", headers)).location!;
      for (let k = 0; k < 3; k++) expect((await get(bed.url, "/split1", headers)).location).toBe(first);
      seen.add(first);
    }
    expect([...seen].sort()).toEqual(["https://example.com/a", "https://example.com/b"]);
    const clicks = await clicksOf(bed, record.id, 80);
    expect(new Set(clicks.map((c) => c.destination))).toEqual(new Set(["split:1", "split:2"]));
  });

  it("forwards the visit's query, the destination's own parameters winning", async () => {
    await bed.seed("fwd1", smart("https://example.com/p?a=1#top", { forward_query: true }));
    await bed.seed("nofwd1", smart("https://example.com/p?a=1", { rules: [rules[1]!] }));
    expect((await get(bed.url, "/fwd1?a=2&utm_source=news")).location).toBe(
      "https://example.com/p?a=1&utm_source=news#top",
    );
    expect((await get(bed.url, "/nofwd1?utm_source=news")).location).toBe("https://example.com/p?a=1");
  });

  it("answers a link expired by date with its expired_url (a click tagged expired), else 410", async () => {
    const past = { expires_at: bed.clock.now - 1 };
    const withUrl = smart(
      "https://example.com/",
      { expired_url: "https://example.com/over", forward_query: true },
      past,
    );
    await bed.seed("exp1", withUrl);
    await bed.seed("exp2", smart("https://example.com/", { rules }, past));
    await bed.seed("exp3", redirectRecord("https://example.com/", past));
    expect((await get(bed.url, "/exp1?x=1")).location).toBe("https://example.com/over?x=1");
    expect((await get(bed.url, "/exp2")).status).toBe(410);
    expect((await get(bed.url, "/exp3")).status).toBe(410);
    // Not yet expired on the clock the redirect reads.
    bed.clock.now -= 10;
    try {
      expect((await get(bed.url, "/exp1")).location).toBe("https://example.com/");
    } finally {
      bed.clock.now += 10;
    }
    const clicks = await clicksOf(bed, withUrl.id, 2);
    expect(clicks.map((c) => c.destination)).toEqual(["expired", undefined]);
  });

  it("gives link-preview fetchers the preview page, every value escaped, and people the redirect", async () => {
    const record = smart("https://example.com/", {
      og: {
        title: `Sale <script>alert("x")</script> & more`,
        description: "Up to 50% off",
        image: "abcdefghijklmnop",
      },
    });
    await bed.seed("og1", record);
    await bed.seed("og2", smart("https://example.com/", { og: { title: "No image" } }));
    for (const ua of [UA.slack, UA.facebook]) {
      const page = await get(bed.url, "/og1?utm_source=x", { "user-agent": ua });
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(page.headers.get("cache-control")).toMatch(/^private/);
      expect(page.body).toContain(
        '<meta property="og:title" content="Sale &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more">',
      );
      expect(page.body).not.toContain("<script>");
      expect(page.body).toContain('<meta property="og:description" content="Up to 50% off">');
      expect(page.body).toContain(
        '<meta property="og:image" content="https://kurz.test/api/v1/images/abcdefghijklmnop">',
      );
      expect(page.body).toContain(`<meta property="og:url" content="${bed.url}/og1?utm_source=x">`);
      expect(page.body).toContain('<meta name="twitter:card" content="summary_large_image">');
      expect(page.body).toContain("<title>Sale &lt;script&gt;");
      expect(page.body).toContain('<meta http-equiv="refresh" content="0; url=https://example.com/">');
      expect(page.body).toContain('<a href="https://example.com/">');
    }
    expect((await get(bed.url, "/og2", { "user-agent": UA.slack })).body).toContain(
      '<meta name="twitter:card" content="summary">',
    );
    const person = await get(bed.url, "/og1");
    expect(person.status).toBe(302);
    expect(person.location).toBe("https://example.com/");
    expect(await clicksOf(bed, record.id, 3)).toHaveLength(3);
  });

  it("spells og:url on a branded domain in that domain's scheme", async () => {
    const record = smart("https://example.com/", { og: { title: "Brand" } });
    await bed.seed("og3", record);
    const onHost = async (host: string) => {
      const port = new URL(bed.url).port;
      return new Promise<string>((resolve, reject) => {
        request(
          { host: "127.0.0.1", port, path: "/og3", headers: { host, "user-agent": UA.slack } },
          (res) => {
            let body = "";
            res.setEncoding("utf8");
            res.on("data", (c: string) => {
              body += c;
            });
            res.on("end", () => resolve(body));
          },
        )
          .on("error", reject)
          .end();
      });
    };
    const domain = (id: number, https?: boolean) =>
      JSON.stringify({
        id,
        account_id: record.account_id,
        redirect_root: null,
        redirect_404: null,
        ...(https === undefined ? {} : { https }),
        v: 1,
      });
    await bed.redis.set(domainKey("plain.brand.test"), domain(1, false));
    await bed.redis.set(domainKey("secure.brand.test"), domain(2, true));
    await bed.redis.set(domainKey("older.brand.test"), domain(3));
    expect(await onHost("plain.brand.test")).toContain(
      '<meta property="og:url" content="http://plain.brand.test/og3">',
    );
    expect(await onHost("secure.brand.test")).toContain(
      '<meta property="og:url" content="https://secure.brand.test/og3">',
    );
    // A record without the scheme: PUBLIC_BASE_URL's (the bed's is http).
    expect(await onHost("older.brand.test")).toContain(
      '<meta property="og:url" content="http://older.brand.test/og3">',
    );
  });

  it("redirects a record without `s` as before, and one whose `s` does not parse to its own URL", async () => {
    await bed.seed("old1", redirectRecord("https://example.com/old"));
    const bad = { ...redirectRecord("https://example.com/bad"), s: { r: "not rules", m: -3 } };
    await bed.redis.set("link:bad1", JSON.stringify(bad));
    expect((await get(bed.url, "/old1")).location).toBe("https://example.com/old");
    expect((await get(bed.url, "/bad1?utm_source=x")).location).toBe("https://example.com/bad");
    const unreadable = bed.warnings.filter((w) => "m" in w && w.m === "a link's smart part is unreadable");
    expect(unreadable).toEqual([{ level: "warn", link: bad.id, m: "a link's smart part is unreadable" }]);
  });

  it("follows a password link's POST to the destination its visitor gets, with a 303", async () => {
    const record = smart("https://example.com/", { rules }, { password_hash: await hash("sesame") });
    await bed.seed("pw1", record);
    expect((await get(bed.url, "/pw1", { "user-agent": UA.mac })).status).toBe(200);
    const posted = await get(
      bed.url,
      "/pw1",
      { "user-agent": UA.mac, "content-type": "application/x-www-form-urlencoded" },
      "POST",
      "password=sesame",
    );
    expect(posted.status).toBe(303);
    expect(posted.location).toBe("https://example.com/mac");
    expect((await clicksOf(bed, record.id, 1))[0]!.destination).toBe("rule:2");
  });

  it("decides the destination of a smart link a campaign's rotator follows", async () => {
    const record = smart("https://example.com/", { rules });
    await bed.seed("rot1", record);
    await bed.redis.set(
      rotatorKey("smart-campaign"),
      JSON.stringify({
        campaign_id: 7,
        account_id: record.account_id,
        links: [{ id: record.id, short_code: "rot1", weight: 1 }],
      }),
    );
    expect((await get(bed.url, "/r/smart-campaign", { "user-agent": UA.mac })).location).toBe(
      "https://example.com/mac",
    );
    const [click] = await clicksOf(bed, record.id, 1);
    expect(click).toMatchObject({ short_code: "rot1", destination: "rule:2" });
  });

  it("frames or links an overlay over the destination its visitor gets", async () => {
    const record = smart("https://example.com/", { rules }, { overlay_id: 41, frameable: true });
    await bed.seed("ovl1", record);
    await bed.redis.set(
      overlayKey(41),
      JSON.stringify({
        id: 41,
        account_id: record.account_id,
        type: "message",
        text: "Hello",
        button_label: null,
        button_url: null,
        fields: [],
        bg_color: "#ffffff",
        text_color: "#000000",
        button_color: "#ff0000",
        position: "bottom",
      }),
    );
    const mac = await get(bed.url, "/ovl1", { "user-agent": UA.mac });
    expect(mac.status).toBe(200);
    // Framing was checked for the link's own URL: a rule's destination gets the interstitial.
    expect(mac.body).toContain('href="https://example.com/mac"');
    expect(mac.body).not.toContain("<iframe");
    const other = await get(bed.url, "/ovl1");
    expect(other.body).toContain('<iframe src="https://example.com/"');
    const clicks = await clicksOf(bed, record.id, 2);
    expect(clicks.map((c) => c.destination)).toEqual(["rule:2", undefined]);
  });

  it("never fails on hostile requests: a huge Accept-Language, a malformed query, odd agents", async () => {
    await bed.seed("hostile1", smart("https://example.com/p?a=1", { rules, forward_query: true }));
    const answers = [
      await get(bed.url, "/hostile1", {
        "accept-language": `${"x-".repeat(4000)}de;q=0.9,${",".repeat(2000)}`,
      }),
      await get(bed.url, "/hostile1?%zz=%&&=&a&b=%E0%A4%A&ref=tw%00&%ff"),
      await get(bed.url, '/hostile1?<script>="x"\'{}|^`'),
      await get(bed.url, "/hostile1", { "user-agent": `Mozilla/5.0 (${"(".repeat(3000)}` }),
      await get(bed.url, "/hostile1", { "user-agent": "" }),
      await get(bed.url, "/hostile1", { "x-forwarded-for": "not-an-ip, ::ffff:zz" }),
    ];
    for (const a of answers) expect(a.status).toBe(302);
    expect(answers[1]!.location).toMatch(/^https:\/\/example\.com\/p\?a=1&/);
    expect(answers[2]!.location).not.toMatch(/[<>"'{}|^`]/);
    expect(bed.warnings.filter((w) => (w as { level: string }).level === "error")).toEqual([]);
  });
});

describe("the click limit across three instances on one Redis", () => {
  let bed: SmartBed;
  beforeAll(async () => {
    bed = await startSmartBed({ name: "smart-limit", instances: 3 });
  });
  afterAll(() => bed?.stop());

  /** 64 visits at once, spread over the instances; their answers. */
  const burst = (code: string, headers: Record<string, string> = {}) =>
    Promise.all(Array.from({ length: 64 }, (_, i) => get(bed.urls[i % 3]!, `/${code}`, headers)));

  it("lets exactly max_clicks visits through, then sends the rest to expired_url", async () => {
    const record = smart("https://example.com/", { max_clicks: 20, expired_url: "https://example.com/over" });
    await bed.seed("lim1", record);
    const answers = await burst("lim1");
    expect(answers.filter((a) => a.location === "https://example.com/").length).toBe(20);
    expect(answers.filter((a) => a.location === "https://example.com/over").length).toBe(44);
    const clicks = await clicksOf(bed, record.id, 64);
    expect(clicks.filter((c) => c.destination === undefined)).toHaveLength(20);
    expect(clicks.filter((c) => c.destination === "expired")).toHaveLength(44);
  });

  it("answers 410 past the limit without expired_url, and counts neither HEAD nor bots", async () => {
    const record = smart("https://example.com/", { max_clicks: 5 });
    await bed.seed("lim2", record);
    for (let i = 0; i < 3; i++) {
      expect((await get(bed.urls[i]!, "/lim2", {}, "HEAD")).status).toBe(302);
      expect((await get(bed.urls[i]!, "/lim2", { "user-agent": UA.slack })).status).toBe(302);
    }
    expect(await bed.redis.get(`click-limit:${record.id}`)).toBeNull();
    const answers = await burst("lim2");
    expect(answers.filter((a) => a.status === 302).length).toBe(5);
    expect(answers.filter((a) => a.status === 410).length).toBe(59);
    // At the limit, a HEAD and a bot get the expired answer too.
    expect((await get(bed.url, "/lim2", {}, "HEAD")).status).toBe(410);
    expect((await get(bed.url, "/lim2", { "user-agent": UA.slack })).status).toBe(410);
    // 3 bot clicks (recorded, not counted) and the 5 counted ones; 410s publish none.
    expect(await clicksOf(bed, record.id, 8)).toHaveLength(8);
  });

  it("never touches Redis for a link without a limit", async () => {
    const record = smart("https://example.com/", { forward_query: true });
    await bed.seed("nolim1", record);
    await burst("nolim1");
    expect(await bed.redis.exists(`click-limit:${record.id}`)).toBe(0);
  });
});

describe("the click limit while its Redis is away", () => {
  let bed: SmartBed;
  let dead: Redis;
  beforeAll(async () => {
    dead = new Redis("redis://127.0.0.1:9", {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      lazyConnect: true,
      retryStrategy: () => null,
    });
    dead.on("error", () => {});
    bed = await startSmartBed({ name: "smart-limit-down", clickLimitRedis: dead });
  });
  afterAll(async () => {
    await bed?.stop();
    dead.disconnect();
  });

  it("refuses that link's visits with 503 and Retry-After, and serves every other link", async () => {
    await bed.seed("down1", smart("https://example.com/", { max_clicks: 3 }));
    await bed.seed("up1", smart("https://example.com/up", { forward_query: true }));
    const refused = await get(bed.url, "/down1");
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect((await get(bed.url, "/up1")).location).toBe("https://example.com/up");
    expect(bed.warnings.some((w) => (w as { m?: string }).m?.includes("click limit unavailable"))).toBe(true);
  });
});
