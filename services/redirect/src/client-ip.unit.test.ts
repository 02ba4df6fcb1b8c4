import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { clientIp } from "./client-ip.ts";

const req = (xff: string | undefined, remote = "::ffff:10.0.0.9") =>
  ({
    rawHeaders: xff === undefined ? ["Host", "k.example"] : ["Host", "k.example", "X-Forwarded-For", xff],
    socket: { remoteAddress: remote },
  }) as unknown as IncomingMessage;

describe("clientIp", () => {
  it("ignores X-Forwarded-For without trusted proxies and strips the IPv4-mapped prefix", () => {
    expect(clientIp(req("203.0.113.1"), 0)).toBe("10.0.0.9");
  });

  it("takes the entry as many places from the right as there are trusted proxies", () => {
    expect(clientIp(req("198.51.100.7, 203.0.113.1"), 1)).toBe("203.0.113.1");
    expect(clientIp(req("198.51.100.7, 203.0.113.1"), 2)).toBe("198.51.100.7");
    expect(clientIp(req("spoofed, 198.51.100.7, 203.0.113.1"), 2)).toBe("198.51.100.7");
  });

  it("uses the leftmost entry when there are fewer entries than hops, skipping empty ones", () => {
    expect(clientIp(req(" 203.0.113.1 ,, "), 3)).toBe("203.0.113.1");
  });

  it("reads every X-Forwarded-For line, in any letter case, as one list", () => {
    const twoLines = {
      rawHeaders: ["x-forwarded-for", "198.51.100.7", "X-FORWARDED-FOR", "203.0.113.1"],
      socket: { remoteAddress: "10.0.0.9" },
    } as unknown as IncomingMessage;
    expect(clientIp(twoLines, 1)).toBe("203.0.113.1");
    expect(clientIp(twoLines, 2)).toBe("198.51.100.7");
  });

  it("falls back to the socket when the header is missing or empty", () => {
    expect(clientIp(req(undefined), 1)).toBe("10.0.0.9");
    expect(clientIp(req(" , "), 1)).toBe("10.0.0.9");
  });
});
