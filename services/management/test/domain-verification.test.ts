// The TXT check behind domain verification, against a real DNS server on loopback: what counts as
// proof, what counts as a definite failure, and what proves nothing (errors, timeouts).
import { createSocket, type Socket } from "node:dgram";
import { domainVerificationRecord } from "@kurz/contracts";
import { startTestDnsServer, type TestDnsServer } from "@kurz/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  checkDomainControl,
  createTxtLookup,
  newVerificationToken,
} from "../src/domains/domain-verification.ts";

describe("domain verification check", () => {
  let dns: TestDnsServer;
  let silent: Socket;
  const token = newVerificationToken();

  beforeAll(async () => {
    const { name, value } = domainVerificationRecord("go.ok.test", token);
    dns = await startTestDnsServer({
      [name]: ["v=spf1 -all", value],
      "_kurz-verify.go.wrong.test": [`kurz-verify=${"0".repeat(32)}`, `${value} `, value.toUpperCase()],
    });
    // A UDP socket that never answers: a resolver that times out.
    silent = createSocket("udp4");
    await new Promise<void>((resolve) => silent.bind(0, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    silent?.close();
    await dns?.stop();
  });

  it("makes 128-bit hex tokens", () => {
    expect(token).toMatch(/^[0-9a-f]{32}$/);
    expect(newVerificationToken()).not.toBe(token);
  });

  it("verifies only an exact value among the name's TXT records", async () => {
    const lookup = createTxtLookup({ servers: [dns.address] });
    expect(await checkDomainControl(lookup, "go.ok.test", token)).toBe("verified");
    expect(await checkDomainControl(lookup, "go.ok.test", newVerificationToken())).toBe("failed");
    expect(await checkDomainControl(lookup, "go.wrong.test", token)).toBe("failed");
    expect(await checkDomainControl(lookup, "go.missing.test", token)).toBe("failed");
  });

  it("joins the strings of one record, as a long TXT value is split", async () => {
    const { value } = domainVerificationRecord("go.split.test", token);
    const lookup = async () => [[value.slice(0, 10), value.slice(10)]];
    expect(await checkDomainControl(lookup, "go.split.test", token)).toBe("verified");
  });

  it("throws, proving nothing, when the resolver errs or does not answer in time", async () => {
    const refusing = async () => {
      throw Object.assign(new Error("queryTxt ESERVFAIL"), { code: "ESERVFAIL" });
    };
    await expect(checkDomainControl(refusing, "go.ok.test", token)).rejects.toThrow(/ESERVFAIL/);

    const port = (silent.address() as { port: number }).port;
    const slow = createTxtLookup({ servers: [`127.0.0.1:${port}`], timeoutMs: 300 });
    const started = Date.now();
    await expect(checkDomainControl(slow, "go.ok.test", token)).rejects.toMatchObject({
      code: expect.stringMatching(/ETIMEOUT|ECANCELLED/),
    });
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
