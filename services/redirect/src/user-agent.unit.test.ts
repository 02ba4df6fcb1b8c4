import { describe, expect, it } from "vitest";
import { agentOf } from "./user-agent.ts";

describe("agentOf", () => {
  it("maps ua-parser's names onto the rules' devices, systems and browsers", () => {
    expect(
      agentOf(
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
      ),
    ).toEqual({ device: "mobile", os: "ios", browser: "safari", bot: false });
    expect(
      agentOf(
        "Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36",
      ),
    ).toEqual({ device: "mobile", os: "android", browser: "samsung", bot: false });
    expect(agentOf("Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0")).toEqual(
      {
        device: "desktop",
        os: "linux",
        browser: "firefox",
        bot: false,
      },
    );
    expect(
      agentOf(
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0",
      ),
    ).toMatchObject({ os: "macos", browser: "edge" });
    expect(
      agentOf(
        "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
      ),
    ).toMatchObject({ os: "chromeos", browser: "chrome" });
    expect(
      agentOf(
        "Mozilla/5.0 (iPad; CPU OS 16_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/120 Mobile/15E148 Safari/604.1",
      ),
    ).toMatchObject({ device: "tablet", os: "ios" });
  });

  it("leaves what it does not know unknown, a desktop, and knows preview fetchers as bots", () => {
    expect(agentOf(undefined)).toEqual({ device: "desktop", os: null, browser: null, bot: false });
    expect(agentOf("curl/8.5.0")).toMatchObject({ os: null, browser: null });
    expect(agentOf("Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)").bot).toBe(true);
    expect(agentOf("facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)").bot).toBe(
      true,
    );
  });

  it("parses huge agents by their prefix, the same answer for the same prefix", () => {
    const head = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/126.0.0.0 Safari/537.36 ";
    const a = agentOf(head + "x".repeat(20_000));
    expect(a).toMatchObject({ os: "windows", browser: "chrome" });
    expect(agentOf(head + "x".repeat(30_000))).toBe(a);
  });
});
