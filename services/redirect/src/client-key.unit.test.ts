import { describe, expect, it } from "vitest";
import { clientKey } from "./client-key.ts";

describe("clientKey", () => {
  it("is one opaque key per network, never the address", () => {
    const a = clientKey("2001:db8:1:2::1");
    expect(clientKey("2001:db8:1:2::abcd")).toBe(a);
    expect(clientKey("2001:db8:1:3::1")).not.toBe(a);
    expect(a).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(clientKey("203.0.113.7")).not.toContain("203");
  });
});
