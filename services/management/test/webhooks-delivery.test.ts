// The webhook dispatcher against real Postgres and a local receiver, on a simulated clock: a day of
// retries or a minute of downtime runs in seconds while every time rule (backoff, retry window,
// disabling, click batching) is applied exactly as in production.
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { ClickEvent } from "@kurz/contracts";
import { createPrisma, type PrismaClient } from "@kurz/db";
import { createLogger } from "@kurz/service-kit";
import { type TestDatabase, waitFor } from "@kurz/testing";
import { createMigratedDatabase } from "@kurz/testing/migrated-database";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../src/accounts/create-account.ts";
import { PublicAddressGuard } from "../src/security/public-address-guard.ts";
import { createWebhook } from "../src/webhooks/create-webhook.ts";
import { type DispatcherOptions, retryDelayMs, WebhookDispatcher } from "../src/webhooks/dispatcher.ts";
import type { WebhookEndpointDeps } from "../src/webhooks/endpoints.ts";
import { enqueueClicks, enqueueLinkEvents } from "../src/webhooks/enqueue.ts";
import { SecretBox } from "../src/webhooks/secrets.ts";
import { WebhookSender } from "../src/webhooks/sender.ts";
import { updateWebhook } from "../src/webhooks/update-webhook.ts";
import { linkEventOf, type Receiver, startReceiver, verifyStandardWebhook } from "./webhooks-helpers.ts";

const HOUR = 60 * 60_000;
const OPTIONS: DispatcherOptions = {
  pollMs: 1_000_000, // never polls by itself: the tests call tick()
  retryBaseMs: 1_000,
  retryMaxMs: 8_000,
  retryWindowMs: 24 * HOUR,
  disableAfterFailures: 5,
  disableAfterMs: 30_000,
  clickBatchMax: 10,
  clickBatchMs: 2_000,
  logRetentionMs: 30 * 24 * HOUR,
  leaseMs: 60_000,
};

let database: TestDatabase;
let prisma: PrismaClient;
const logLines: string[] = [];
const logger = createLogger("webhooks-test", "trace", {
  write: (line: string) => {
    logLines.push(line);
  },
} as never);
const secrets = new SecretBox("test-webhook-secrets-key");
const guard = new PublicAddressGuard(["127.0.0.1"]);
const sender = new WebhookSender({ guard, timeoutMs: 2_000 });

beforeAll(async () => {
  database = await createMigratedDatabase("webhooks");
  prisma = createPrisma(database.url);
});

afterAll(async () => {
  await sender.close();
  await prisma?.$disconnect();
  await database?.drop();
});

/** An account, one endpoint for it at the receiver, and a dispatcher on a clock the test moves. */
async function setup(receiver: Receiver, events: string[], opts: Partial<DispatcherOptions> = {}) {
  let now = Date.now();
  const clock = () => now;
  const account = await createAccount(prisma, {
    email: `wh-${randomUUID()}@example.com`,
    keyLimits: { perMinute: 60, perHour: 1000 },
  });
  const deps: WebhookEndpointDeps = { prisma, secrets, guard, retryWindowMs: OPTIONS.retryWindowMs };
  const endpoint = await createWebhook(deps, account.account_id, {
    url: receiver.url,
    events: events as never,
  });
  // Events are stamped after the endpoint exists (it hears only of what happens after its creation).
  now = Date.parse(endpoint.created_at) + 10;
  const options = { ...OPTIONS, ...opts };
  const dispatcher = new WebhookDispatcher(
    { prisma, sender: { send: (u, h, b) => sender.send(u, h, b) }, secrets, logger, now: clock },
    options,
  );
  const enqueue = { prisma, retryWindowMs: options.retryWindowMs, now: clock };
  return {
    accountId: account.account_id,
    endpoint,
    deps,
    dispatcher,
    enqueue,
    now: clock,
    advance: (ms: number) => {
      now += ms;
    },
    /** Ticks every `stepMs` of simulated time for `totalMs`. */
    async run(totalMs: number, stepMs = 500) {
      for (let t = 0; t <= totalMs; t += stepMs) {
        await dispatcher.tick();
        now += stepMs;
      }
    },
    deliveries: () =>
      prisma.webhookDelivery.findMany({ where: { endpointId: endpoint.id }, orderBy: { seq: "asc" } }),
  };
}

describe("webhook delivery", () => {
  it("signs every request by the Standard Webhooks rules, with the documented payload", async () => {
    const receiver = await startReceiver();
    const s = await setup(receiver, ["link.created", "link.updated", "link.deleted"]);
    const link = randomUUID();
    await enqueueLinkEvents(s.enqueue, [
      linkEventOf(s.accountId, link, "link.created", 1, s.now()),
      linkEventOf(s.accountId, link, "link.updated", 2, s.now()),
      linkEventOf(s.accountId, link, "link.deleted", 3, s.now()),
    ]);
    await s.run(2_000);
    expect(receiver.requests.map((r) => r.json.type)).toEqual([
      "link.created",
      "link.updated",
      "link.deleted",
    ]);
    for (const r of receiver.requests) {
      expect(verifyStandardWebhook(s.endpoint.secret, r.headers, r.body, Math.floor(s.now() / 1000))).toBe(
        true,
      );
      // A different secret or a changed body does not verify.
      expect(
        verifyStandardWebhook(
          `whsec_${Buffer.alloc(32).toString("base64")}`,
          r.headers,
          r.body,
          s.now() / 1000,
        ),
      ).toBe(false);
      expect(
        verifyStandardWebhook(s.endpoint.secret, r.headers, `${r.body} `, Math.floor(s.now() / 1000)),
      ).toBe(false);
      expect(r.id).toMatch(/^msg_[A-Za-z0-9_-]+$/);
      expect(Object.keys(r.json)).toEqual(["type", "timestamp", "data"]);
      expect(r.headers["content-type"]).toBe("application/json");
    }
    expect(receiver.requests[0]!.json.data.link).toMatchObject({ id: link, title: "1", is_active: true });
    expect(receiver.requests[2]!.json.data).toEqual({
      link: { id: link, short_code: `c${link.slice(0, 6)}` },
    });
    const log = await s.deliveries();
    expect(log.map((d) => [d.status, d.attempts, d.responseCode])).toEqual([
      ["delivered", 1, 200],
      ["delivered", 1, 200],
      ["delivered", 1, 200],
    ]);
    await receiver.close();
  });

  it("retries with growing, jittered delays and the same webhook-id until the receiver accepts", async () => {
    let calls = 0;
    const times: number[] = [];
    const receiver = await startReceiver(() => (++calls <= 4 ? 500 : 204));
    const s = await setup(receiver, ["link.created"]);
    receiver.setAnswer(() => {
      times.push(s.now());
      return ++calls <= 4 ? 500 : 204;
    });
    await enqueueLinkEvents(s.enqueue, [linkEventOf(s.accountId, randomUUID(), "link.created", 1, s.now())]);
    await s.run(40_000, 100);
    expect(receiver.requests).toHaveLength(5);
    expect(new Set(receiver.requests.map((r) => r.id)).size).toBe(1);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    // Attempt n waits between half and all of min(max, base * 2^(n-1)): 1 s, 2 s, 4 s, 8 s.
    gaps.forEach((gap, i) => {
      const full = Math.min(OPTIONS.retryMaxMs, OPTIONS.retryBaseMs * 2 ** i);
      expect(gap).toBeGreaterThanOrEqual(full / 2);
      expect(gap).toBeLessThanOrEqual(full + 200);
    });
    const [d] = await s.deliveries();
    expect(d).toMatchObject({ status: "delivered", attempts: 5, responseCode: 204 });
    await receiver.close();
  });

  it("delivers everything exactly once per id, in order per link, after the receiver was down a minute", async () => {
    const receiver = await startReceiver();
    // A minute down is far from disabling under the defaults (24 h); here too.
    const s = await setup(receiver, ["link.created", "link.updated"], { disableAfterMs: 10 * 60_000 });
    await receiver.close(); // down: connections refused
    const links = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const events = [];
    for (let n = 1; n <= 8; n++)
      for (const link of links)
        events.push(linkEventOf(s.accountId, link, n === 1 ? "link.created" : "link.updated", n, s.now()));
    await enqueueLinkEvents(s.enqueue, events);
    // A bus redelivery of the same events adds nothing.
    await enqueueLinkEvents(s.enqueue, events);
    await s.run(60_000, 1_000);
    expect(receiver.requests).toHaveLength(0);
    const during = await s.deliveries();
    expect(during).toHaveLength(32);
    expect(during.every((d) => d.status === "pending")).toBe(true);
    // Only each link's head was tried while down: later events waited behind it.
    expect(during.filter((d) => d.attempts > 0)).toHaveLength(links.length);
    await receiver.reopen();
    // Management restarts meanwhile: a new dispatcher knows only what is in Postgres.
    const restarted = new WebhookDispatcher(
      { prisma, sender, secrets, logger, now: s.now },
      { ...OPTIONS, disableAfterMs: 10 * 60_000 },
    );
    for (let t = 0; t < 120; t++) {
      await restarted.tick();
      s.advance(1_000);
    }
    const ids = receiver.accepted().map((r) => r.id);
    expect(ids).toHaveLength(32);
    expect(new Set(ids).size).toBe(32);
    for (const link of links) {
      const titles = receiver.requests
        .filter((r) => r.json.data.link.id === link)
        .map((r) => r.json.data.link.title);
      expect(titles).toEqual(["1", "2", "3", "4", "5", "6", "7", "8"]);
    }
    expect((await s.deliveries()).every((d) => d.status === "delivered")).toBe(true);
    await receiver.close();
  });

  it("sends again, once, what a dispatcher claimed and never finished (a crash mid-request)", async () => {
    const receiver = await startReceiver();
    const s = await setup(receiver, ["link.created"]);
    await enqueueLinkEvents(s.enqueue, [linkEventOf(s.accountId, randomUUID(), "link.created", 1, s.now())]);
    // This instance claims the delivery and dies before the request completes.
    const crashed = new WebhookDispatcher(
      { prisma, sender: { send: () => new Promise(() => {}) }, secrets, logger, now: s.now },
      OPTIONS,
    );
    void crashed.tick();
    await waitFor(async () => (await s.deliveries())[0]!.nextAttemptAt!.getTime() > s.now(), {
      description: "the claim's lease",
    });
    // Another instance leaves it alone while the lease holds, then takes it over.
    await s.dispatcher.tick();
    expect(receiver.requests).toHaveLength(0);
    s.advance(OPTIONS.leaseMs + 1);
    await s.dispatcher.tick();
    expect(receiver.accepted()).toHaveLength(1);
    expect((await s.deliveries())[0]).toMatchObject({ status: "delivered", attempts: 1 });
    await receiver.close();
  });

  it("holds a link's later event while its earlier one is retrying, without holding other links", async () => {
    const receiver = await startReceiver();
    const s = await setup(receiver, ["link.created", "link.updated"]);
    const [a, b] = [randomUUID(), randomUUID()];
    let firstOfA = true;
    receiver.setAnswer((r) => {
      if (r.json.data.link.id === a && firstOfA) {
        firstOfA = false;
        return 503;
      }
      return 200;
    });
    await enqueueLinkEvents(s.enqueue, [
      linkEventOf(s.accountId, a, "link.created", 1, s.now()),
      linkEventOf(s.accountId, a, "link.updated", 2, s.now()),
      linkEventOf(s.accountId, b, "link.created", 1, s.now()),
      linkEventOf(s.accountId, b, "link.updated", 2, s.now()),
    ]);
    await s.run(300, 100); // less than the first retry delay
    const seen = () =>
      receiver.accepted().map((r) => `${r.json.data.link.id === a ? "a" : "b"}${r.json.data.link.title}`);
    expect(seen()).toEqual(["b1", "b2"]);
    await s.run(5_000, 100);
    expect(seen()).toEqual(["b1", "b2", "a1", "a2"]);
    await receiver.close();
  });

  it("disables an endpoint after repeated failures, and its owner re-enables it", async () => {
    const receiver = await startReceiver(() => 500);
    const s = await setup(receiver, ["link.created"]);
    await enqueueLinkEvents(s.enqueue, [
      linkEventOf(s.accountId, randomUUID(), "link.created", 1, s.now()),
      linkEventOf(s.accountId, randomUUID(), "link.created", 2, s.now()),
    ]);
    await s.run(60_000, 1_000);
    const endpoint = await prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: s.endpoint.id } });
    expect(endpoint).toMatchObject({ enabled: false, disabledReason: "failing" });
    expect(endpoint.consecutiveFailures).toBeGreaterThanOrEqual(OPTIONS.disableAfterFailures);
    // Disabled: nothing more is sent, and new events are not recorded for it.
    const sent = receiver.requests.length;
    await enqueueLinkEvents(s.enqueue, [linkEventOf(s.accountId, randomUUID(), "link.created", 3, s.now())]);
    await s.run(30_000, 1_000);
    expect(receiver.requests.length).toBe(sent);
    expect(await s.deliveries()).toHaveLength(2);
    // The owner fixes the receiver and re-enables: what was pending goes out.
    receiver.setAnswer(() => 200);
    const back = await updateWebhook(
      s.deps,
      s.accountId,
      s.endpoint.id,
      { enabled: true },
      new Date(s.now()),
    );
    expect(back).toMatchObject({ enabled: true, disabled_reason: null, consecutive_failures: 0 });
    await s.run(2_000, 500);
    expect(new Set(receiver.accepted().map((r) => r.id)).size).toBe(2);
    expect((await s.deliveries()).map((d) => d.status)).toEqual(["delivered", "delivered"]);
    await receiver.close();
  });

  it("gives a delivery up after the retry window and logs it as failed", async () => {
    const receiver = await startReceiver(() => 500);
    const s = await setup(receiver, ["link.deleted"], { retryWindowMs: 20_000, disableAfterFailures: 1000 });
    await enqueueLinkEvents(s.enqueue, [linkEventOf(s.accountId, randomUUID(), "link.deleted", 1, s.now())]);
    await s.run(40_000, 1_000);
    const [d] = await s.deliveries();
    expect(d).toMatchObject({ status: "failed", responseCode: 500, nextAttemptAt: null });
    expect(d!.attempts).toBeGreaterThan(2);
    await receiver.close();
  });

  it("batches clicks per endpoint: full batches at once, the rest after the batch time, each click once", async () => {
    const receiver = await startReceiver();
    const s = await setup(receiver, ["click"]);
    const link = randomUUID();
    const clicks: ClickEvent[] = Array.from({ length: 25 }, (_, i) => ({
      v: 1,
      click_id: uuidV7(s.now() + i),
      link_id: link,
      account_id: s.accountId,
      short_code: "abc",
      ts: new Date(s.now() + i).toISOString(),
      ip: "203.0.113.9",
      user_agent: "test",
      referrer: null,
      host: null,
    }));
    await enqueueClicks(s.enqueue, clicks);
    await enqueueClicks(s.enqueue, clicks.slice(0, 10)); // redelivered by the bus
    await s.dispatcher.tick();
    expect(receiver.requests.map((r) => r.json.data.clicks.length)).toEqual([10, 10]);
    s.advance(OPTIONS.clickBatchMs);
    await s.dispatcher.tick();
    expect(receiver.requests.map((r) => r.json.data.clicks.length)).toEqual([10, 10, 5]);
    const got = receiver.requests.flatMap((r) =>
      r.json.data.clicks.map((c: { click_id: string }) => c.click_id),
    );
    expect(got.sort()).toEqual(clicks.map((c) => c.click_id).sort());
    expect(receiver.requests.every((r) => r.json.type === "click")).toBe(true);
    // No IP address leaves Kurz.
    expect(receiver.requests.some((r) => r.body.includes("203.0.113.9"))).toBe(false);
    await receiver.close();
  });

  it("keeps secrets out of the logs, even when a secret cannot be opened", async () => {
    const receiver = await startReceiver(() => 500);
    const s = await setup(receiver, ["link.created"]);
    await enqueueLinkEvents(s.enqueue, [linkEventOf(s.accountId, randomUUID(), "link.created", 1, s.now())]);
    await s.run(3_000, 1_000);
    // A key change makes the stored secret unreadable: the attempt fails, nothing leaks.
    const other = new WebhookDispatcher(
      { prisma, sender, secrets: new SecretBox("another-key-entirely"), logger, now: s.now },
      OPTIONS,
    );
    s.advance(10_000);
    await other.tick();
    const all = logLines.join("\n");
    expect(all).not.toContain(s.endpoint.secret);
    expect(all).not.toContain(s.endpoint.secret.slice(6, 30));
    const stored = await prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: s.endpoint.id } });
    expect(stored.secretCiphertext).not.toContain(s.endpoint.secret.slice(6, 30));
    await receiver.close();
  });

  it("logs a failed attempt's category, never the network stack's code", async () => {
    // A server that accepts connections and never answers: the attempt times out.
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const silentPort = (silent.address() as AddressInfo).port;
    const receiver = await startReceiver(() => 503);
    const closed = await startReceiver();
    await closed.close();
    const quick = new WebhookSender({ guard, timeoutMs: 500 });
    const send = (url: string) => quick.send(url, {}, "{}");
    try {
      expect(await send(receiver.url)).toMatchObject({ ok: false, status: 503, error: "HTTP 503" });
      // TLS spoken to a plain-HTTP server fails its handshake (ERR_SSL_WRONG_VERSION_NUMBER or EPROTO).
      expect(await send(`https://127.0.0.1:${receiver.port}/hook`)).toMatchObject({
        status: null,
        error: "TLS",
      });
      expect(await send(closed.url)).toMatchObject({ status: null, error: "refused" });
      expect(await send(`http://127.0.0.1:${silentPort}/hook`)).toMatchObject({
        status: null,
        error: "timeout",
      });
      // Not public and not resolving are one category, so the log tells nothing of internal names.
      expect(await send("http://10.0.0.1/hook")).toMatchObject({ status: null, error: "DNS" });
      expect(await send("http://does-not-exist.invalid/hook")).toMatchObject({ status: null, error: "DNS" });
    } finally {
      await quick.close();
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
      await receiver.close();
    }
  });

  it("computes backoff within its bounds", () => {
    expect(retryDelayMs(1, 1000, 8000, () => 0)).toBe(500);
    expect(retryDelayMs(1, 1000, 8000, () => 1)).toBe(1000);
    expect(retryDelayMs(3, 1000, 8000, () => 1)).toBe(4000);
    expect(retryDelayMs(30, 1000, 8000, () => 1)).toBe(8000);
  });
});

/** A version-7 UUID for `ms` (the contracts require v7 click ids). */
function uuidV7(ms: number): string {
  const hex = ms.toString(16).padStart(12, "0");
  const rand = randomUUID().replace(/-/g, "");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${rand.slice(13, 16)}-${((Number.parseInt(rand[16]!, 16) & 3) | 8).toString(16)}${rand.slice(17, 20)}-${rand.slice(20, 32)}`;
}
