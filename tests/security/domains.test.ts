// Attacks on branded domains (docs/security.md "Branded domains"): claiming a
// host without proving control of its DNS, squatting or hijacking another account's domain, and
// passing off the platform's own host in another spelling. Proof of control is a TXT record served
// by a real DNS server on loopback (dnsmasq, packages/testing/src/dns.ts) that management queries.
//
// The victim (B) owns the bank's domain; the attacker (A) has an ordinary API key. The platform's
// own host is a DNS name here (PUBLIC_BASE_URL, with a non-ASCII label so that IDNA spellings can be
// tried); the stack is still reached on 127.0.0.1, with Host headers sent byte for byte by raw().
import { waitFor } from "@kurz/testing";
import { useTestDnsServer } from "@kurz/testing/use-stack";
import { beforeAll, describe, expect, it } from "vitest";
import { expectLegacyError, raw, useAttackerAndVictim, useAttackStack } from "./attack.ts";

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const unique = `${process.pid}${Date.now().toString(36)}`;
/** The platform's own host name, as configured and as it travels (IDNA). */
const PLATFORM_NAME = `kürz-${unique}.test`;
const PLATFORM_ASCII = new URL(`http://${PLATFORM_NAME}`).hostname;
const PLATFORM_PORT = 8080;

let seq = 0;
const bankHost = () => `go.bank-${unique}-${++seq}.test`;

const dns = useTestDnsServer();
const bed = useAttackStack(
  () => ({
    DNS_SERVERS: dns().address,
    PUBLIC_BASE_URL: `http://${PLATFORM_NAME}:${PLATFORM_PORT}`,
  }),
  { inProcess: true },
);
const ctx = useAttackerAndVictim(bed, "domains");
/** B's own link, and A's, by custom alias. */
const victimAlias = `bank-login-${unique}`;
const attackerAlias = `secure-login-${unique}`;

beforeAll(async () => {
  const made = await ctx.asVictim("POST", "/api/v1/links", {
    url: "https://bank.example/login",
    custom_alias: victimAlias,
  });
  const own = await ctx.asAttacker("POST", "/api/v1/links", {
    url: "https://attacker.example/phish",
    custom_alias: attackerAlias,
  });
  expect([made.status, own.status], made.text + own.text).toEqual([201, 201]);
});

/** GET `path` on the public origin with this Host header. */
const onHost = (host: string, path: string) =>
  raw(bed.stack.origin, "GET", path, { headers: { host, "user-agent": BROWSER } });

/** B's domains exactly as B's list shows them. */
const victimDomains = async () => {
  const res = await ctx.asVictim("GET", "/api/domains?limit=100");
  expect(res.status, res.text).toBe(200);
  return res.body.data.domains as Array<Record<string, unknown> & { id: number; status: string }>;
};
const domainCount = () => bed.prisma.domain.count();

/** B adds a domain with redirects, so that serving it is visible on `/` and on unknown codes. */
async function victimAdds(host: string) {
  const res = await ctx.asVictim("POST", "/api/domain/add", {
    domain: `https://${host}`,
    redirectroot: "https://bank.example/home",
    redirect404: "https://bank.example/missing",
  });
  expect(res.status, res.text).toBe(200);
  return res.body as {
    id: number;
    status: string;
    verification: { type: string; name: string; value: string };
  };
}

/** Nothing of the domain's own: no redirectroot on `/`, no redirect404 on an unknown code. */
async function expectNotServing(host: string) {
  const root = await onHost(host, "/");
  expect(root.headers.location, `${host} / → ${root.status}`).not.toBe("https://bank.example/home");
  const unknown = await onHost(host, "/no-such-code-here");
  expect(unknown.status).toBe(404);
  expect(unknown.headers.location).toBeUndefined();
}

describe("proof of control", () => {
  it("a new domain is pending, and its host serves nothing of its owner's", async () => {
    const host = bankHost();
    const added = await victimAdds(host);
    expect(added).toMatchObject({
      error: 0,
      status: "pending",
      verification: { type: "TXT", name: `_kurz-verify.${host}` },
    });
    expect(added.verification.value).toMatch(/^kurz-verify=[0-9a-f]{32}$/);
    await expectNotServing(host);
    const victimLink = await onHost(host, `/${victimAlias}`);
    expect(victimLink.headers.location).toBeUndefined();
  });

  it("the attacker can neither verify, update nor delete the victim's domain", async () => {
    const host = bankHost();
    const { id } = await victimAdds(host);
    await dns().setTxt(`_kurz-verify.${host}`, ["kurz-verify=attacker-guess"]);
    const before = await victimDomains();
    expectLegacyError(await ctx.asAttacker("POST", `/api/domain/${id}/verify`), 404);
    expectLegacyError(
      await ctx.asAttacker("PUT", `/api/domain/${id}/update`, { redirectroot: "https://attacker.example/" }),
      404,
    );
    expectLegacyError(await ctx.asAttacker("DELETE", `/api/domain/${id}/delete`), 404);
    expect(await victimDomains()).toEqual(before);
    await expectNotServing(host);
  });

  it("the owner publishes the TXT record and verifies: then, and only then, the host serves", async () => {
    const host = bankHost();
    const added = await victimAdds(host);
    await dns().setTxt(added.verification.name, [added.verification.value]);
    const verified = await ctx.asVictim("POST", `/api/domain/${added.id}/verify`);
    expect(verified.status, verified.text).toBe(200);
    expect(verified.body).toMatchObject({ error: 0, id: added.id, status: "verified" });

    await waitFor(async () => (await onHost(host, "/")).headers.location === "https://bank.example/home", {
      timeoutMs: 10_000,
      description: "the verified domain's redirectroot",
    });
    // The owner's links on the domain serve there, and so do its main-host links.
    const alias = `${victimAlias}-on-${seq}`;
    const made = await ctx.asVictim("POST", "/api/v1/links", {
      url: "https://bank.example/login",
      custom_alias: alias,
      domain: host,
    });
    expect(made.status, made.text).toBe(201);
    const link = await onHost(host, `/${alias}`);
    expect(link.status).toBe(302);
    expect(link.headers.location).toBe("https://bank.example/login");
    expect(await onHost(host, `/${victimAlias}`)).toMatchObject({
      status: 302,
      headers: { location: "https://bank.example/login" },
    });
    // Another account's code on the bank's host is that domain's "not found".
    const foreign = await onHost(host, `/${attackerAlias}`);
    expect(foreign.headers.location).not.toBe("https://attacker.example/phish");
    expect(foreign).toMatchObject({ status: 302, headers: { location: "https://bank.example/missing" } });
  });

  it("a wrong TXT value fails, and the host keeps serving nothing", async () => {
    const host = bankHost();
    const added = await victimAdds(host);
    await dns().setTxt(added.verification.name, [
      "kurz-verify=0123456789abcdef0123456789abcdef",
      `${added.verification.value}x`,
      added.verification.value.toUpperCase(),
    ]);
    const res = await ctx.asVictim("POST", `/api/domain/${added.id}/verify`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ error: 0, status: "failed", verified_at: null });
    await expectNotServing(host);
  });

  it("removing the TXT record and verifying again fails the domain, and it stops serving", async () => {
    const host = bankHost();
    const added = await victimAdds(host);
    await dns().setTxt(added.verification.name, [added.verification.value]);
    expect((await ctx.asVictim("POST", `/api/domain/${added.id}/verify`)).body.status).toBe("verified");
    await waitFor(async () => (await onHost(host, "/")).headers.location === "https://bank.example/home", {
      timeoutMs: 10_000,
      description: "the verified domain to serve",
    });

    await dns().removeTxt(added.verification.name);
    const res = await ctx.asVictim("POST", `/api/domain/${added.id}/verify`);
    expect(res.body).toMatchObject({ error: 0, status: "failed" });
    await waitFor(async () => (await onHost(host, "/")).headers.location !== "https://bank.example/home", {
      timeoutMs: 10_000,
      description: "the failed domain to stop serving",
    });
    await expectNotServing(host);
    expect((await victimDomains()).find((d) => d.id === added.id)?.status).toBe("failed");
  });
});

describe("deleting a domain with its links", () => {
  it("only the owner deletes them, and their codes stay reserved to the owner afterwards", async () => {
    const host = bankHost();
    const added = await victimAdds(host);
    await dns().setTxt(added.verification.name, [added.verification.value]);
    expect((await ctx.asVictim("POST", `/api/domain/${added.id}/verify`)).body.status).toBe("verified");
    const alias = `${victimAlias}-del-${seq}`;
    const made = await ctx.asVictim("POST", "/api/v1/links", {
      url: "https://bank.example/login",
      custom_alias: alias,
      domain: host,
    });
    expect(made.status, made.text).toBe(201);
    await waitFor(async () => (await onHost(host, `/${alias}`)).status === 302, {
      timeoutMs: 10_000,
      description: "the branded link to redirect",
    });

    // The attacker's delete is a 404 and takes nothing with it.
    expectLegacyError(await ctx.asAttacker("DELETE", `/api/domain/${added.id}/delete`), 404);
    expect((await onHost(host, `/${alias}`)).headers.location).toBe("https://bank.example/login");
    expect((await ctx.asVictim("GET", `/api/v1/links/${made.body.data.id}`)).status).toBe(200);

    const deleted = await ctx.asVictim("DELETE", `/api/domain/${added.id}/delete`);
    expect(deleted.body).toMatchObject({ error: 0, links_deleted: 1 });
    // The printed branded URL cannot be taken over: the code is retired to the victim for the grace.
    const squat = await ctx.asAttacker("POST", "/api/v1/links", {
      url: "https://attacker.example/phish",
      custom_alias: alias,
    });
    expect(squat.status, squat.text).toBe(409);
    await waitFor(async () => (await onHost(host, `/${alias}`)).status === 404, {
      timeoutMs: 10_000,
      description: "the deleted domain's link to stop redirecting",
    });
  });
});

describe("claims", () => {
  it("a host verified by another account cannot be claimed, in any spelling", async () => {
    const host = bankHost();
    const added = await victimAdds(host);
    await dns().setTxt(added.verification.name, [added.verification.value]);
    expect((await ctx.asVictim("POST", `/api/domain/${added.id}/verify`)).body.status).toBe("verified");
    const count = await domainCount();
    for (const domain of [
      `https://${host}`,
      `http://${host.toUpperCase()}`,
      `https://${host}.`,
      `https://${host}:443`,
      `http://${host}:80/`,
    ]) {
      expectLegacyError(await ctx.asAttacker("POST", "/api/domain/add", { domain }), 409);
    }
    expect(await domainCount()).toBe(count);
    expect((await victimDomains()).find((d) => d.id === added.id)?.status).toBe("verified");
  });

  it("a pending claim holds the host: the attacker cannot claim it while the owner verifies", async () => {
    const host = bankHost();
    const added = await victimAdds(host);
    const count = await domainCount();
    expectLegacyError(await ctx.asAttacker("POST", "/api/domain/add", { domain: `https://${host}` }), 409);
    expect(await domainCount()).toBe(count);
    await dns().setTxt(added.verification.name, [added.verification.value]);
    expect((await ctx.asVictim("POST", `/api/domain/${added.id}/verify`)).body.status).toBe("verified");
  });

  it("a squatter's claim blocks the real owner for the hold only, and never verifies", async () => {
    const host = bankHost();
    const squat = await ctx.asAttacker("POST", "/api/domain/add", { domain: `https://${host}` });
    expect(squat.status, squat.text).toBe(200);
    // The real owner is refused while the claim is held…
    expectLegacyError(await ctx.asVictim("POST", "/api/domain/add", { domain: `https://${host}` }), 409);
    // …and the squatter cannot verify without the DNS.
    expect((await ctx.asAttacker("POST", `/api/domain/${squat.body.id}/verify`)).body.status).toBe("failed");
    await expectNotServing(host);

    // Once the hold is over (72 h after the claim; aged here), the owner claims the host afresh.
    await bed.prisma.domain.update({
      where: { id: squat.body.id },
      data: { createdAt: new Date(Date.now() - 73 * 3600 * 1000) },
    });
    const added = await victimAdds(host);
    expect(added.verification.value).not.toBe(squat.body.verification.value);
    expectLegacyError(await ctx.asAttacker("POST", `/api/domain/${squat.body.id}/verify`), 404);
    // Re-claiming at once is refused: the owner's claim now holds the host.
    expectLegacyError(await ctx.asAttacker("POST", "/api/domain/add", { domain: `https://${host}` }), 409);
    await dns().setTxt(added.verification.name, [added.verification.value]);
    expect((await ctx.asVictim("POST", `/api/domain/${added.id}/verify`)).body.status).toBe("verified");
  });

  it("a TXT record left from a deleted domain proves nothing for the next claimant", async () => {
    const host = bankHost();
    const added = await victimAdds(host);
    await dns().setTxt(added.verification.name, [added.verification.value]);
    expect((await ctx.asVictim("POST", `/api/domain/${added.id}/verify`)).body.status).toBe("verified");
    expect((await ctx.asVictim("DELETE", `/api/domain/${added.id}/delete`)).status).toBe(200);

    const taken = await ctx.asAttacker("POST", "/api/domain/add", {
      domain: `https://${host}`,
      redirectroot: "https://attacker.example/",
    });
    expect(taken.status, taken.text).toBe(200);
    expect(taken.body.verification.value).not.toBe(added.verification.value);
    const res = await ctx.asAttacker("POST", `/api/domain/${taken.body.id}/verify`);
    expect(res.body).toMatchObject({ error: 0, status: "failed" });
    const root = await onHost(host, "/");
    expect(root.headers.location).not.toBe("https://attacker.example/");
  });
});

describe("the platform's own host", () => {
  it("is refused in every spelling, and as any IP address or local name", async () => {
    const listening = new URL(bed.stack.origin);
    const spellings = [
      `https://${PLATFORM_NAME}`,
      `https://${PLATFORM_NAME}.`,
      `http://${PLATFORM_NAME}:${PLATFORM_PORT}`,
      `http://${PLATFORM_NAME.toUpperCase()}:${PLATFORM_PORT}`,
      `http://${PLATFORM_ASCII}`,
      `http://${PLATFORM_ASCII}:80`,
      `https://${PLATFORM_ASCII.toUpperCase()}.:443`,
      `http://${PLATFORM_ASCII}.:${PLATFORM_PORT}/`,
      bed.stack.origin,
      `http://${listening.hostname}`,
      "http://0x7f.0.0.1",
      "http://2130706433",
      "http://[::1]",
      `http://localhost:${listening.port}`,
      "http://localhost.",
    ];
    expect(PLATFORM_ASCII).toMatch(/^xn--/);
    const count = await domainCount();
    const before = await victimDomains();
    for (const domain of spellings) {
      const res = await ctx.asVictim("POST", "/api/domain/add", { domain });
      expectLegacyError(res, 400);
      expect(res.body.message, domain).toMatch(/own address|IP address|port|fully qualified|public DNS/);
    }
    expect(await domainCount()).toBe(count);
    expect(await victimDomains()).toEqual(before);

    // The platform still serves its own links on its own host.
    const link = await onHost(`${PLATFORM_ASCII}:${PLATFORM_PORT}`, `/${attackerAlias}`);
    expect(link.status).toBe(302);
    expect(link.headers.location).toBe("https://attacker.example/phish");
  });
});
