import { describe, expect, it } from "vitest";
import { allowsFraming } from "./frame-policy.ts";

const headers = (h: Record<string, string>) => new Headers(h);

describe("allowsFraming", () => {
  it("allows a destination that says nothing about framing, or frame-ancestors *", () => {
    expect(allowsFraming(headers({}))).toBe(true);
    expect(allowsFraming(headers({ "content-security-policy": "default-src 'self'" }))).toBe(true);
    expect(allowsFraming(headers({ "content-security-policy": "frame-ancestors *; img-src *" }))).toBe(true);
  });

  it("refuses any X-Frame-Options and any frame-ancestors that does not name *", () => {
    for (const value of ["DENY", "SAMEORIGIN", "ALLOW-FROM https://kurz.example", "garbage"]) {
      expect(allowsFraming(headers({ "x-frame-options": value }))).toBe(false);
    }
    for (const policy of [
      "frame-ancestors 'none'",
      "frame-ancestors 'self'",
      "FRAME-ANCESTORS https://a.example",
    ]) {
      expect(allowsFraming(headers({ "content-security-policy": policy }))).toBe(false);
    }
    // Two policies (joined by a comma): each must allow it.
    expect(
      allowsFraming(headers({ "content-security-policy": "frame-ancestors *, frame-ancestors 'self'" })),
    ).toBe(false);
  });
});
