import { describe, expect, it } from "vitest";
import { clientBudgetHash, clientNetwork } from "../src/client-budget.ts";

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
    expect(clientNetwork("")).toBe("unknown");
    expect(clientNetwork("not-an-ip")).toBe("not-an-ip");
    expect(clientNetwork("x".repeat(100))).toHaveLength(64);
  });
});

describe("clientBudgetHash", () => {
  it("is one keyed hash per network: two addresses of one /64 share it, never the address", () => {
    const a = clientBudgetHash("secret", "2001:db8:1:2::1");
    expect(clientBudgetHash("secret", "2001:db8:1:2:ffff::9")).toBe(a);
    expect(clientBudgetHash("secret", "2001:db8:1:3::1")).not.toBe(a);
    expect(clientBudgetHash("other", "2001:db8:1:2::1")).not.toBe(a);
    expect(clientBudgetHash("secret", "::ffff:203.0.113.7")).toBe(clientBudgetHash("secret", "203.0.113.7"));
    expect(clientBudgetHash("secret", "203.0.113.7")).not.toBe(clientBudgetHash("secret", "203.0.113.8"));
    expect(a).toMatch(/^[0-9a-f]{32}$/);
  });
});
