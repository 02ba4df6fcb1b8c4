import { describe, expect, it } from "vitest";
import { clickHeaders } from "./raw-headers.ts";

describe("clickHeaders", () => {
  it("reads host, user agent, referer and X-Forwarded-For in any letter case", () => {
    expect(
      clickHeaders([
        "HOST",
        "k.example",
        "user-agent",
        "UA/1",
        "ReFeReR",
        "https://from.example/",
        "x-forwarded-for",
        "203.0.113.1",
        "Accept",
        "*/*",
      ]),
    ).toEqual({
      host: "k.example",
      userAgent: "UA/1",
      referer: "https://from.example/",
      forwardedFor: "203.0.113.1",
    });
  });

  it("keeps the first host, user agent and referer, as Node does, and joins X-Forwarded-For lines", () => {
    const raw = [
      "Host",
      "first.example",
      "Host",
      "second.example",
      "User-Agent",
      "first",
      "User-Agent",
      "second",
      "X-Forwarded-For",
      "198.51.100.7",
      "X-Forwarded-For",
      "203.0.113.1",
    ];
    expect(clickHeaders(raw)).toMatchObject({
      host: "first.example",
      userAgent: "first",
      forwardedFor: "198.51.100.7, 203.0.113.1",
    });
  });

  it("leaves absent headers undefined and ignores names of the same length", () => {
    expect(clickHeaders(["Hots", "x", "Referrer", "y", "User-Agents", "z"])).toEqual({
      host: undefined,
      userAgent: undefined,
      referer: undefined,
      forwardedFor: undefined,
    });
  });

  it("reads the edge's request header, and refuses it when it came more than once", () => {
    const value = "6b542d65e2c4d0837981d44aea105cca 1795563642.835";
    expect(clickHeaders(["X-Kurz-Edge-Request", value]).edgeRequest).toBe(value);
    expect(clickHeaders(["x-kurz-edge-request", value]).edgeRequest).toBe(value);
    expect(clickHeaders(["X-KURZ-EDGE-REQUEST", value]).edgeRequest).toBe(value);
    expect(clickHeaders(["X-Kurz-Edge-Request", value, "X-Kurz-Edge-Request", value]).edgeRequest).toBe("");
    expect(clickHeaders(["X-Kurz-Edge-Requesu", value]).edgeRequest).toBeUndefined();
  });
});
