import { describe, expect, it } from "vitest";
import { HostClassifier, PUBLIC_HOST } from "./request-host.ts";

describe("HostClassifier", () => {
  const hosts = new HostClassifier("https://Kurz.example:8443");

  it("takes every spelling of the public host name, on any port, and a missing Host, as public", () => {
    for (const host of [
      undefined,
      "kurz.example:8443",
      "KURZ.example",
      "kurz.example.",
      "kurz.example:443",
      "kurz.example:80",
      "kurz.example:9999",
    ])
      expect(hosts.classify(host)).toBe(PUBLIC_HOST);
  });

  it("names any other host in canonical form, without its port, for the branded-domain lookup", () => {
    expect(hosts.classify("Go.Bank.Test.")).toBe("go.bank.test");
    expect(hosts.classify("go.bank.test:443")).toBe("go.bank.test");
    expect(hosts.classify("bücher.example")).toBe("xn--bcher-kva.example");
    expect(hosts.classify("kurz.example.evil.test")).toBe("kurz.example.evil.test");
    expect(hosts.classify("127.0.0.1:8080")).toBe("127.0.0.1");
  });

  it("refuses a Host that is no host name (null: no lookup)", () => {
    for (const host of [
      "",
      "a b",
      "user@kurz.example",
      "kurz.example/x",
      "-bad-.test",
      "%6burz.example",
      "x".repeat(300),
    ])
      expect(hosts.classify(host)).toBeNull();
  });
});

describe("HostClassifier on a loopback public host (./kurz up)", () => {
  const hosts = new HostClassifier("http://127.0.0.1:8080");

  it("takes every name of this machine as the public host", () => {
    for (const host of ["127.0.0.1:8080", "localhost:8080", "LOCALHOST", "[::1]:8080", "127.0.1.1"])
      expect(hosts.classify(host)).toBe(PUBLIC_HOST);
  });

  it("still looks other hosts up as branded domains", () => {
    expect(hosts.classify("go.bank.test")).toBe("go.bank.test");
  });
});

describe("HostClassifier's memo of answers", () => {
  it("answers a Host the same the second time, and keeps answering after many distinct Hosts", () => {
    const hosts = new HostClassifier("https://kurz.example");
    const first = ["kurz.example:8443", "Go.Bank.Test.", "a b", "x".repeat(300)].map((h) =>
      hosts.classify(h),
    );
    for (let i = 0; i < 3000; i++) expect(hosts.classify(`d${i}.example`)).toBe(`d${i}.example`);
    const again = ["kurz.example:8443", "Go.Bank.Test.", "a b", "x".repeat(300)].map((h) =>
      hosts.classify(h),
    );
    expect(again).toEqual(first);
    expect(first).toEqual([PUBLIC_HOST, "go.bank.test", null, null]);
  });
});
