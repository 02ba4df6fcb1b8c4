// Attacks on webhooks (docs/webhooks.md, docs/security.md "Webhooks"): endpoint URLs aimed at private,
// loopback or link-local addresses (refused when created or changed, and again at every delivery,
// including a host whose DNS answer turns private after it was accepted: DNS rebinding), another
// account's webhook ids, and the signing secret leaking through any answer after its creation. What a
// refusal and the delivery log say must not be an oracle: one answer for an internal name and an
// unknown one, and a category (timeout, refused, TLS, DNS, HTTP status) instead of the socket's code.
// DNS answers come from a real DNS server on loopback (dnsmasq) that the stack's webhooks resolve with.
import { startHttpServer, waitFor } from "@kurz/testing";
import { useHttpServer, useTestDnsServer } from "@kurz/testing/use-stack";
import { describe, expect, it } from "vitest";
import { api, attackerAndVictim, expectV1Error, uniqueEmail, useAttackStack } from "./attack.ts";

/** An address that is public by every rule the guard applies (no request is ever sent to it here). */
const PUBLIC_IP = "93.184.216.34";
/** The one name exempt from the address check in this stack; it resolves to the receiver on loopback. */
const ALLOWED_HOST = "receiver.allowed.test";

let hits = 0;
const receiver = useHttpServer((_req, res) => {
  hits++;
  res.end("ok");
});
const dns = useTestDnsServer();
const bed = useAttackStack(
  () => ({
    // Nothing on loopback is reachable, as by default, except through the one name allowed here for
    // the delivery log's attack (a receiver's TLS failure).
    WEBHOOK_ALLOW_HOSTS: ALLOWED_HOST,
    WEBHOOK_DNS_SERVERS: dns().address,
    WEBHOOK_POLL_MS: "100",
    WEBHOOK_RETRY_BASE_MS: "200",
    WEBHOOK_RETRY_MAX_MS: "500",
  }),
  { inProcess: true },
);

describe("webhook endpoint URLs", () => {
  it("refuses private, loopback, link-local and other non-public targets at creation", async () => {
    await dns().setAddresses("private.rebind.test", ["10.1.2.3"]);
    await dns().setAddresses("loop.rebind.test", ["127.0.0.1"]);
    await dns().setAddresses("mixed.rebind.test", [PUBLIC_IP, "192.168.0.10"]);
    await dns().setAddresses("metadata6.rebind.test", ["fd00:ec2::254"]);
    const owner = await bed.stack.createAccount(uniqueEmail("wh-ssrf"));
    const call = api(bed.stack, owner.api_key);
    const refusals = new Map<string, unknown>();
    for (const url of [
      `http://127.0.0.1:${receiver().port}/hook`,
      "http://localhost/hook",
      "http://10.0.0.1/hook",
      "http://172.16.5.4/hook",
      "http://192.168.1.1/hook",
      "http://169.254.169.254/latest/meta-data/",
      "http://100.100.100.200/",
      "http://0.0.0.0/",
      "http://[::1]/",
      "http://[fd00:ec2::254]/",
      "http://[::ffff:127.0.0.1]/",
      "http://2130706433/", // 127.0.0.1 as one number
      "http://0x7f.0.0.1/",
      "http://private.rebind.test/hook",
      `http://loop.rebind.test:${receiver().port}/hook`,
      "http://mixed.rebind.test/hook",
      "http://metadata6.rebind.test/hook",
      "http://does-not-exist.rebind.test/hook",
    ]) {
      const res = await call("POST", "/api/v1/webhooks", { url, events: ["link.created"] });
      expectV1Error(res, 400, "VALIDATION_ERROR");
      refusals.set(url, res.body.error);
    }
    expect(await bed.prisma.webhookEndpoint.count({ where: { accountId: owner.account_id } })).toBe(0);
    // One answer for all of them: an internal name (private.rebind.test) and an unknown one
    // (does-not-exist.rebind.test) are refused alike, so the answer tells no name that exists.
    const [first, ...rest] = [...refusals.values()];
    for (const [url, error] of refusals) expect(error, url).toEqual(first);
    expect(rest).toHaveLength(17);
  });

  it("refuses changing an endpoint's URL to a private target, and keeps the old URL", async () => {
    const owner = await bed.stack.createAccount(uniqueEmail("wh-ssrf-patch"));
    const call = api(bed.stack, owner.api_key);
    const created = await call("POST", "/api/v1/webhooks", {
      url: `http://${PUBLIC_IP}/hook`,
      events: ["link.created"],
      enabled: false,
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.id;
    for (const url of [
      `http://127.0.0.1:${receiver().port}/`,
      "http://169.254.169.254/",
      "http://private.rebind.test/",
    ]) {
      expectV1Error(await call("PATCH", `/api/v1/webhooks/${id}`, { url }), 400, "VALIDATION_ERROR");
    }
    expect((await call("GET", `/api/v1/webhooks/${id}`)).body.data.url).toBe(`http://${PUBLIC_IP}/hook`);
  });

  it("refuses at delivery a host that turned private after it was accepted (DNS rebinding)", async () => {
    await dns().setAddresses("hooks.rebind.test", [PUBLIC_IP]);
    const owner = await bed.stack.createAccount(uniqueEmail("wh-rebind"));
    const call = api(bed.stack, owner.api_key);
    const created = await call("POST", "/api/v1/webhooks", {
      url: `http://hooks.rebind.test:${receiver().port}/hook`,
      events: ["link.created"],
    });
    expect(created.status, created.text).toBe(201);
    // The name now points at the receiver on loopback.
    await dns().setAddresses("hooks.rebind.test", ["127.0.0.1"]);
    const before = hits;
    const link = await call("POST", "/api/v1/links", { url: "https://example.com/rebind", title: "r" });
    expect(link.status, link.text).toBe(201);
    const log = await waitFor(
      async () => {
        const res = await call("GET", `/api/v1/webhooks/${created.body.data.id}/deliveries`);
        const d = res.body.data?.[0];
        return d && d.attempts >= 2 ? d : null;
      },
      { timeoutMs: 20_000, description: "two refused attempts" },
    );
    expect(log).toMatchObject({ status: "pending", response_code: null, error: "DNS" });
    expect(hits).toBe(before);
  });

  it("refuses at delivery a stored URL that is a private address (written before the rules, or by hand)", async () => {
    const owner = await bed.stack.createAccount(uniqueEmail("wh-stored"));
    const call = api(bed.stack, owner.api_key);
    const created = await call("POST", "/api/v1/webhooks", {
      url: `http://${PUBLIC_IP}/hook`,
      events: ["link.created"],
      enabled: false,
    });
    const id = created.body.data.id;
    await bed.prisma.webhookEndpoint.update({
      where: { id },
      data: { url: `http://127.0.0.1:${receiver().port}/hook` },
    });
    expect((await call("PATCH", `/api/v1/webhooks/${id}`, { enabled: true })).status).toBe(200);
    const before = hits;
    expect(
      (await call("POST", "/api/v1/links", { url: "https://example.com/stored", title: "s" })).status,
    ).toBe(201);
    const log = await waitFor(
      async () => (await call("GET", `/api/v1/webhooks/${id}/deliveries`)).body.data?.[0]?.attempts >= 1,
      { timeoutMs: 20_000, description: "a refused attempt" },
    );
    expect(log).toBe(true);
    const [d] = (await call("GET", `/api/v1/webhooks/${id}/deliveries`)).body.data;
    expect(d.error).toBe("DNS");
    expect(hits).toBe(before);
  });
});

describe("the delivery log", () => {
  it("names a failed attempt's category, never the receiver's TLS or socket error code", async () => {
    await dns().setAddresses(ALLOWED_HOST, ["127.0.0.1"]);
    const owner = await bed.stack.createAccount(uniqueEmail("wh-log"));
    const call = api(bed.stack, owner.api_key);
    const closed = await startHttpServer(() => {});
    const closedPort = closed.port;
    await closed.close();
    // TLS spoken to the plain-HTTP receiver (a handshake failure), and a port nobody listens on.
    const expected = new Map([
      [`https://${ALLOWED_HOST}:${receiver().port}/hook`, "TLS"],
      [`http://${ALLOWED_HOST}:${closedPort}/hook`, "refused"],
    ]);
    const ids = new Map<string, string>();
    for (const url of expected.keys()) {
      const created = await call("POST", "/api/v1/webhooks", { url, events: ["link.created"] });
      expect(created.status, created.text).toBe(201);
      ids.set(url, created.body.data.id);
    }
    const before = hits;
    expect((await call("POST", "/api/v1/links", { url: "https://example.com/log", title: "l" })).status).toBe(
      201,
    );
    for (const [url, category] of expected) {
      const d = await waitFor(
        async () => {
          const [row] = (await call("GET", `/api/v1/webhooks/${ids.get(url)}/deliveries`)).body.data ?? [];
          return row?.attempts >= 1 ? row : null;
        },
        { timeoutMs: 20_000, description: `an attempt to ${url}` },
      );
      expect(d, url).toMatchObject({ status: "pending", response_code: null, error: category });
      expect(JSON.stringify(d)).not.toMatch(/ERR_|SSL|ECONN|EPROTO/);
    }
    expect(hits).toBe(before);
  });
});

describe("webhook tenancy and secrets", () => {
  it("answers 404 for another account's webhook ids and changes nothing", async () => {
    const { victim, asAttacker, asVictim } = await attackerAndVictim(bed.stack, "wh-tenant");
    const created = await asVictim("POST", "/api/v1/webhooks", {
      url: `http://${PUBLIC_IP}/hook`,
      events: ["click"],
      enabled: false,
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    for (const [method, path, body] of [
      ["GET", `/api/v1/webhooks/${id}`, undefined],
      ["PATCH", `/api/v1/webhooks/${id}`, { enabled: true, url: `http://${PUBLIC_IP}/attacker` }],
      ["DELETE", `/api/v1/webhooks/${id}`, undefined],
      ["POST", `/api/v1/webhooks/${id}/rotate-secret`, undefined],
      ["GET", `/api/v1/webhooks/${id}/deliveries`, undefined],
    ] as const) {
      expectV1Error(await asAttacker(method, path, body), 404, "NOT_FOUND");
    }
    const list = await asAttacker("GET", "/api/v1/webhooks");
    expect(list.body.data).toEqual([]);
    const stored = await bed.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id } });
    expect(stored).toMatchObject({
      accountId: victim.account_id,
      url: `http://${PUBLIC_IP}/hook`,
      enabled: false,
      secretPrefix: created.body.data.secret_prefix,
    });
  });

  it("never shows the secret again after creation or rotation", async () => {
    const owner = await bed.stack.createAccount(uniqueEmail("wh-secret"));
    const call = api(bed.stack, owner.api_key);
    const created = await call("POST", "/api/v1/webhooks", {
      url: `http://${PUBLIC_IP}/hook`,
      events: ["link.updated"],
      enabled: false,
    });
    const { id, secret } = created.body.data;
    const rotated = await call("POST", `/api/v1/webhooks/${id}/rotate-secret`);
    const secrets = [secret, rotated.body.data.secret];
    for (const res of [
      await call("GET", "/api/v1/webhooks"),
      await call("GET", `/api/v1/webhooks/${id}`),
      await call("PATCH", `/api/v1/webhooks/${id}`, { description: "x" }),
      await call("GET", `/api/v1/webhooks/${id}/deliveries`),
      await call("DELETE", `/api/v1/webhooks/${id}`),
    ]) {
      for (const s of secrets) expect(res.text).not.toContain(s.slice("whsec_".length, 30));
      expect(res.text).not.toContain('"secret"');
    }
  });
});
