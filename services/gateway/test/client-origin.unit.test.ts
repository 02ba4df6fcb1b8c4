// The audit log's view of a client (client-origin.ts): only the network prefix of its address and the
// family of its user agent, never the address or a version.
import { describe, expect, it } from "vitest";
import { agentFamily, ipPrefix } from "../src/client-origin.ts";

describe("ipPrefix", () => {
  it("keeps an IPv4 address's /24 (an IPv4-mapped IPv6 address is IPv4)", () => {
    expect(ipPrefix("203.0.113.77")).toBe("203.0.113.0/24");
    expect(ipPrefix("::ffff:198.51.100.9")).toBe("198.51.100.0/24");
  });

  it("keeps an IPv6 address's /48, written short", () => {
    expect(ipPrefix("2001:db8:abcd:12::1")).toBe("2001:db8:abcd::/48");
    expect(ipPrefix("2001:0db8:0000:0000:0000:0000:0000:0001")).toBe("2001:db8:0::/48");
    expect(ipPrefix("::1")).toBe("0:0:0::/48");
    expect(ipPrefix("fe80::1%eth0")).toBe("fe80:0:0::/48");
  });

  it("answers null for what is not an address", () => {
    expect(ipPrefix("")).toBeNull();
    expect(ipPrefix("example.com")).toBeNull();
    expect(ipPrefix("999.1.1.1")).toBeNull();
  });
});

describe("agentFamily", () => {
  it("names the browser and system without versions", () => {
    expect(
      agentFamily(
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
      ),
    ).toBe("Chrome on macOS");
    expect(agentFamily("Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0")).toBe(
      "Firefox on Linux",
    );
  });

  it("names a tool by its product token, and nothing it cannot tell", () => {
    expect(agentFamily("curl/8.4.0")).toBe("curl");
    expect(agentFamily("python-requests/2.31.0")).toBe("python-requests");
    expect(agentFamily("Mozilla/5.0")).toBe("");
    expect(agentFamily("<script>")).toBe("");
  });
});
