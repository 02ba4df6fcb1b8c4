import { Resolver } from "node:dns/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestDnsServer, type TestDnsServer } from "../src/index.ts";

describe("startTestDnsServer", () => {
  let dns: TestDnsServer;
  const resolver = new Resolver({ timeout: 1000, tries: 1 });

  beforeAll(async () => {
    dns = await startTestDnsServer({ "_kurz-verify.go.first.test": ["kurz-verify=one"] });
    resolver.setServers([dns.address]);
  });
  afterAll(() => dns?.stop());

  const txt = async (name: string) => {
    try {
      return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(""));
    } catch (err) {
      return (err as NodeJS.ErrnoException).code;
    }
  };

  it("serves TXT records given at start on a loopback port, and NXDOMAIN for the rest", async () => {
    expect(dns.address).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(await txt("_kurz-verify.go.first.test")).toEqual(["kurz-verify=one"]);
    expect(await txt("_kurz-verify.unknown.test")).toBe("ENOTFOUND");
    expect(await txt("example.com")).toBe("ENOTFOUND");
  });

  it("adds, replaces and removes records while running, on the same port", async () => {
    const { port } = dns;
    await dns.setTxt("_kurz-verify.go.second.test", ["a", "b"]);
    expect((await txt("_kurz-verify.go.second.test")) as string[]).toEqual(
      expect.arrayContaining(["a", "b"]),
    );
    expect(await txt("_kurz-verify.go.first.test")).toEqual(["kurz-verify=one"]);
    await dns.setTxt("_KURZ-VERIFY.GO.SECOND.TEST.", ["c"]);
    expect(await txt("_kurz-verify.go.second.test")).toEqual(["c"]);
    await dns.removeTxt("_kurz-verify.go.second.test");
    expect(await txt("_kurz-verify.go.second.test")).toBe("ENOTFOUND");
    expect(dns.port).toBe(port);
  });

  it("refuses values it could not serve verbatim", async () => {
    await expect(dns.setTxt("x.test", ['a"b'])).rejects.toThrow(/not supported/);
    await dns.setTxt("y.test", ["still fine"]);
    expect(await txt("y.test")).toEqual(["still fine"]);
    expect(await txt("x.test")).toBe("ENOTFOUND");
  });
});
