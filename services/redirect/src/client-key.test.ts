import { describe, expect, it } from "vitest";
import { clientKey, clientNetwork } from "./client-key.ts";

describe("clientNetwork", () => {
  it("counts an IPv6 client by its /64, whatever the spelling", () => {
    expect(clientNetwork("2001:db8:1:2::1")).toBe("2001:db8:1:2::/64");
    expect(clientNetwork("2001:0db8:0001:0002:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(clientNetwork("2001:DB8:1:2:0:0:0:9")).toBe("2001:db8:1:2::/64");
    expect(clientNetwork("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
  });

  it("counts IPv4 by address, IPv4-mapped IPv6 as the IPv4 address", () => {
    expect(clientNetwork("203.0.113.7")).toBe("203.0.113.7");
    expect(clientNetwork("::ffff:203.0.113.7")).toBe("203.0.113.7");
  });

  it("keeps what is not an address as given, capped, and names a missing one", () => {
    expect(clientNetwork(null)).toBe("unknown");
    expect(clientNetwork("not-an-ip")).toBe("not-an-ip");
    expect(clientNetwork("x".repeat(100))).toHaveLength(64);
  });
});

describe("clientKey", () => {
  it("is one opaque key per network, never the address", () => {
    const a = clientKey("2001:db8:1:2::1");
    expect(clientKey("2001:db8:1:2::abcd")).toBe(a);
    expect(clientKey("2001:db8:1:3::1")).not.toBe(a);
    expect(a).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(clientKey("203.0.113.7")).not.toContain("203");
  });
});
