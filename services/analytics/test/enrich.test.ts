import { createHash, createHmac } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadAnalyticsConfig } from "../src/config.ts";
import { GeoIp } from "../src/enrich/geoip.ts";
import { parseAgent } from "../src/enrich/user-agent.ts";
import { VisitorHasher } from "../src/enrich/visitor-hash.ts";

const tmp = mkdtempSync(join(tmpdir(), "kurz-geoip-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("GeoIp over the bundled DB-IP database", () => {
  it("locates public IPv4 and IPv6 addresses, and leaves private ones unknown", async () => {
    const geo = new GeoIp(loadAnalyticsConfig({}).GEOIP_DB_PATH);
    await geo.open();
    expect(geo.enabled).toBe(true);
    // Each family's file is read by its first lookup, not by open().
    expect(geo.loaded).toEqual({ v4: false, v6: false });
    expect(geo.lookup("8.8.8.8")).toEqual({ country: "US", city: "Mountain View" });
    expect(geo.loaded).toEqual({ v4: true, v6: false });
    expect(geo.lookup("81.2.69.160")).toEqual({ country: "GB", city: "London" });
    expect(geo.lookup("2001:4860:4860::8888").country).toMatch(/^[A-Z]{2}$/);
    expect(geo.loaded).toEqual({ v4: true, v6: true });
    for (const ip of ["127.0.0.1", "10.1.2.3", "203.0.113.7", "not-an-ip", "", null]) {
      expect(geo.lookup(ip)).toEqual({ country: "", city: "" });
    }
  });

  it("never fails when the database is missing or unreadable", async () => {
    const broken = join(tmp, "broken.mmdb");
    writeFileSync(broken, "not a database");
    const warnings: string[] = [];
    for (const path of [join(tmp, "missing"), broken, ""]) {
      const geo = new GeoIp(path, { warn: (_o, m) => warnings.push(m ?? "") });
      await geo.open();
      expect(geo.enabled).toBe(false);
      expect(geo.lookup("8.8.8.8")).toEqual({ country: "", city: "" });
    }
    expect(warnings).toHaveLength(2);
  });

  it("a file that ends like a database but is not one is logged when first read, once", async () => {
    const dir = mkdtempSync(join(tmp, "dir-"));
    const marker = Buffer.from("abcdef4d61784d696e642e636f6d", "hex");
    writeFileSync(
      join(dir, "odd-ipv4.mmdb"),
      Buffer.concat([Buffer.from("junk"), marker, Buffer.from("junk")]),
    );
    const warnings: string[] = [];
    const geo = new GeoIp(dir, { warn: (_o, m) => warnings.push(m ?? "") });
    await geo.open();
    expect(geo.enabled).toBe(true);
    expect(warnings).toEqual([]);
    expect(geo.lookup("8.8.8.8")).toEqual({ country: "", city: "" });
    expect(geo.lookup("9.9.9.9")).toEqual({ country: "", city: "" });
    expect(warnings).toEqual(["GeoIP database could not be read; countries and cities stay unknown"]);
  });
});

describe("parseAgent", () => {
  it("maps devices to mobile, tablet or desktop and names browser and OS", () => {
    expect(
      parseAgent(
        "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
      ),
    ).toEqual({ device_type: "mobile", browser: "Chrome", os: "Android", is_bot: 0 });
    expect(
      parseAgent(
        "Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
      ).device_type,
    ).toBe("tablet");
    expect(parseAgent(null)).toEqual({ device_type: "desktop", browser: "", os: "", is_bot: 0 });
  });

  it("flags bots and link-preview fetchers", () => {
    for (const ua of [
      "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
      "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
      "Twitterbot/1.0",
      "WhatsApp/2.23.20.0 A",
      "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
      "TelegramBot (like TwitterBot)",
      "LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)",
      "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
      "curl/8.5.0",
    ]) {
      expect(parseAgent(ua).is_bot, ua).toBe(1);
    }
    // In-app browsers are people.
    expect(
      parseAgent(
        "Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 300.0.0.0",
      ).is_bot,
    ).toBe(0);
  });
});

describe("VisitorHasher", () => {
  it("is stable within a day, differs across days and secrets, and is a UInt64", () => {
    const h = new VisitorHasher("secret");
    const a = h.hash("2026-11-21", "8.8.8.8", "UA");
    expect(a).toMatch(/^\d{1,20}$/);
    expect(BigInt(a) < 2n ** 64n).toBe(true);
    expect(h.hash("2026-11-21", "8.8.8.8", "UA")).toBe(a);
    expect(h.hash("2026-11-22", "8.8.8.8", "UA")).not.toBe(a);
    expect(h.hash("2026-11-21", "8.8.4.4", "UA")).not.toBe(a);
    expect(new VisitorHasher("other").hash("2026-11-21", "8.8.8.8", "UA")).not.toBe(a);
  });

  it("is the first 8 bytes of SHA-256(HMAC(secret, day) ‖ ip ‖ newline ‖ user agent), for any text", () => {
    const h = new VisitorHasher("secret");
    const expected = (day: string, ip: string | null, ua: string | null) => {
      const salt = createHmac("sha256", "secret").update(day).digest();
      const digest = createHash("sha256")
        .update(salt)
        .update(ip ?? "")
        .update("\n")
        .update(ua ?? "")
        .digest();
      return digest.readBigUInt64BE(0).toString();
    };
    const cases: [string, string | null, string | null][] = [
      ["2026-11-21", "8.8.8.8", "UA"],
      ["2026-11-21", null, null],
      [
        "2026-11-21",
        "2001:db8::1",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Überbrowser ✓ 🚀",
      ],
      ["2026-11-22", "8.8.8.8", "a lone surrogate \ud800 here"],
      ["2026-11-21", "x".repeat(64), "€".repeat(1024)],
      ["2026-11-21", "8.8.8.8", "x".repeat(5000)],
      ["2026-11-22", "8.8.8.8", "UA"],
    ];
    for (const [day, ip, ua] of cases)
      expect(h.hash(day, ip, ua), `${day} ${ip} ${ua}`).toBe(expected(day, ip, ua));
  });
});
