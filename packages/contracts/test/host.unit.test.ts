import { describe, expect, it } from "vitest";
import { brandedDomainHost, isIpLiteral, normalizeHost, parseHost } from "../src/index.ts";

describe("normalizeHost", () => {
  it.each([
    ["Go.Bank.TEST", "go.bank.test"],
    ["go.bank.test.", "go.bank.test"],
    ["go.bank.test..", "go.bank.test"],
    ["go.bank.test:80", "go.bank.test"],
    ["go.bank.test:443", "go.bank.test"],
    ["GO.BANK.TEST.:443", "go.bank.test"],
    ["go.bank.test:8080", "go.bank.test:8080"],
    ["go.bank.test.:08080", "go.bank.test:8080"],
    ["bücher.example", "xn--bcher-kva.example"],
    ["BÜCHER.example.", "xn--bcher-kva.example"],
    ["xn--bcher-kva.example", "xn--bcher-kva.example"],
    ["example\u3002com", "example.com"],
    ["localhost", "localhost"],
    ["localhost:3000", "localhost:3000"],
    ["127.0.0.1:8080", "127.0.0.1:8080"],
    ["127.0.0.1:80", "127.0.0.1"],
    ["0x7f.0.0.1", "127.0.0.1"],
    ["[::1]:8080", "[::1]:8080"],
    ["[0:0:0:0:0:0:0:1]", "[::1]"],
    ["a-b.c-d.example", "a-b.c-d.example"],
  ])("%s → %s", (input, expected) => {
    expect(normalizeHost(input)).toBe(expected);
  });

  it.each([
    [""],
    ["."],
    [".."],
    [" go.bank.test"],
    ["go.bank.test "],
    ["go bank.test"],
    ["go.bank.test\t"],
    ["go.bank.test\u0000"],
    ["user@go.bank.test"],
    ["user:pw@go.bank.test"],
    ["go.bank.test/path"],
    ["go.bank.test\\path"],
    ["go.bank.test?x"],
    ["go.bank.test#x"],
    ["go%2ebank.test"],
    ["-go.bank.test"],
    ["go-.bank.test"],
    ["go..bank.test"],
    ["go_bank.test"],
    ["go.bank.test:0"],
    ["go.bank.test:65536"],
    ["go.bank.test:http"],
    [`${"a".repeat(64)}.test`],
    [`${"a.".repeat(126)}ab`],
    ["[::1"],
    ["http://go.bank.test"],
    ["x".repeat(2000)],
  ])("%j → null", (input) => {
    expect(normalizeHost(input)).toBeNull();
  });

  it("accepts names up to 253 characters and labels up to 63", () => {
    const label = "a".repeat(63);
    const name = `${label}.${label}.${label}.${"b".repeat(61)}`;
    expect(name.length).toBe(253);
    expect(normalizeHost(name)).toBe(name);
    expect(normalizeHost(`${name}.`)).toBe(name);
    expect(normalizeHost(`${name}b`)).toBeNull();
  });

  it("splits name and port", () => {
    expect(parseHost("Go.Bank.Test:8443")).toEqual({ hostname: "go.bank.test", port: 8443 });
    expect(parseHost("go.bank.test:443")).toEqual({ hostname: "go.bank.test", port: null });
  });

  it("tells IP literals from names", () => {
    expect(isIpLiteral("127.0.0.1")).toBe(true);
    expect(isIpLiteral("[::1]")).toBe(true);
    expect(isIpLiteral("go.bank.test")).toBe(false);
  });
});

describe("brandedDomainHost", () => {
  it("accepts DNS names in their canonical form", () => {
    expect(brandedDomainHost("Go.Bank.Test.")).toEqual({ ok: true, host: "go.bank.test" });
    expect(brandedDomainHost("go.bank.test:443")).toEqual({ ok: true, host: "go.bank.test" });
    expect(brandedDomainHost("bücher.example")).toEqual({ ok: true, host: "xn--bcher-kva.example" });
  });

  it.each([
    ["127.0.0.1"],
    ["2130706433"],
    ["[::1]"],
    ["localhost"],
    ["LOCALHOST."],
    ["app.localhost"],
    ["intranet"],
    ["go.bank.test:8080"],
    ["go bank.test"],
  ])("refuses %j", (input) => {
    expect(brandedDomainHost(input).ok).toBe(false);
  });
});
