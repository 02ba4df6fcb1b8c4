import { describe, expect, it } from "vitest";
import { htmlPageHeaders } from "../src/security-headers.ts";

describe("htmlPageHeaders", () => {
  it("ends the page's policy with no framing and no <base>, beside the other page headers", () => {
    expect(htmlPageHeaders("default-src 'none'; style-src 'sha256-x';")).toEqual({
      "Content-Security-Policy":
        "default-src 'none'; style-src 'sha256-x'; base-uri 'none'; frame-ancestors 'none'",
      "X-Frame-Options": "DENY",
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "strict-origin-when-cross-origin",
    });
    expect(htmlPageHeaders("default-src 'none'", { referrerPolicy: "no-referrer" })["Referrer-Policy"]).toBe(
      "no-referrer",
    );
  });

  it("refuses a policy that names frame-ancestors or base-uri itself", () => {
    expect(() => htmlPageHeaders("default-src 'none'; frame-ancestors *")).toThrow();
    expect(() => htmlPageHeaders("BASE-URI 'self'")).toThrow();
  });
});
