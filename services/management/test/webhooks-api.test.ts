// /api/v1/webhooks through the whole stack (Redis Streams bus): managing endpoints, the secret shown
// once and rotated, the delivery flow end to end, disabling and re-enabling, and refused input.
import { waitFor } from "@kurz/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestAccount,
  expectV1Error,
  expectV1Success,
  useLinksStack,
  type V1Caller,
  v1Caller,
} from "./links-helpers.ts";
import { runWebhookFlow } from "./webhooks-flow.ts";
import {
  FAST_WEBHOOKS_ENV,
  type Receiver,
  startReceiver,
  verifyStandardWebhook,
} from "./webhooks-helpers.ts";

const bed = useLinksStack(FAST_WEBHOOKS_ENV);
let receiver: Receiver;
let call: V1Caller;

beforeAll(async () => {
  receiver = await startReceiver();
  call = v1Caller(bed.stack, (await createTestAccount(bed.prisma, "wh-api")).api_key);
});

afterAll(async () => {
  await receiver?.close();
});

const WEBHOOK_FIELDS = [
  "consecutive_failures",
  "created_at",
  "description",
  "disabled_at",
  "disabled_reason",
  "enabled",
  "events",
  "id",
  "secret_prefix",
  "updated_at",
  "url",
];

describe("webhook endpoints API", () => {
  it("creates an endpoint and shows its secret once", async () => {
    const created = await call("POST", "/webhooks", {
      url: receiver.url,
      events: ["link.created", "link.created"],
    });
    expectV1Success(created, 201);
    const hook = created.body.data;
    expect(Object.keys(hook).sort()).toEqual([...WEBHOOK_FIELDS, "secret"].sort());
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(hook.secret.startsWith(hook.secret_prefix)).toBe(true);
    expect(hook).toMatchObject({ events: ["link.created"], enabled: true, disabled_reason: null });

    const got = await call("GET", `/webhooks/${hook.id}`);
    expectV1Success(got);
    expect(Object.keys(got.body.data).sort()).toEqual(WEBHOOK_FIELDS);
    const list = await call("GET", "/webhooks");
    expectV1Success(list);
    expect(list.body.data.map((w: { id: string }) => w.id)).toContain(hook.id);
    expect(JSON.stringify(list.body)).not.toContain(hook.secret.slice(6));

    const stored = await bed.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: hook.id } });
    expect(stored.secretCiphertext).not.toContain(hook.secret.slice(6));
  });

  it("rotates the secret: the new one signs what follows, the old one no longer verifies", async () => {
    const r = await startReceiver();
    try {
      const owner = v1Caller(bed.stack, (await createTestAccount(bed.prisma, "wh-rotate")).api_key);
      const created = await owner("POST", "/webhooks", { url: r.url, events: ["link.created"] });
      const rotated = await owner("POST", `/webhooks/${created.body.data.id}/rotate-secret`);
      expectV1Success(rotated);
      const secret = rotated.body.data.secret;
      expect(secret).not.toBe(created.body.data.secret);
      expectV1Success(await owner("POST", "/links", { url: "https://example.com/rotated", title: "r" }), 201);
      await waitFor(() => r.accepted().length === 1, { timeoutMs: 20_000 });
      const req = r.accepted()[0]!;
      const now = Math.floor(Date.now() / 1000);
      expect(verifyStandardWebhook(secret, req.headers, req.body, now)).toBe(true);
      expect(verifyStandardWebhook(created.body.data.secret, req.headers, req.body, now)).toBe(false);
    } finally {
      await r.close();
    }
  });

  it("delivers link events in order and batched clicks, all signed, and logs every delivery", async () => {
    const r = await startReceiver();
    try {
      await runWebhookFlow(bed.stack, r, bed.prisma);
    } finally {
      await r.close();
    }
  });

  it("logs failed attempts with their code and next attempt, and delivers once the receiver recovers", async () => {
    const r = await startReceiver(() => 503);
    try {
      const owner = v1Caller(bed.stack, (await createTestAccount(bed.prisma, "wh-retry")).api_key);
      const hook = (await owner("POST", "/webhooks", { url: r.url, events: ["link.created"] })).body.data;
      expectV1Success(await owner("POST", "/links", { url: "https://example.com/retry", title: "x" }), 201);
      await waitFor(() => r.requests.length >= 2, { timeoutMs: 20_000 });
      const log = await owner("GET", `/webhooks/${hook.id}/deliveries?status=pending`);
      expectV1Success(log);
      expect(log.body.data[0]).toMatchObject({
        status: "pending",
        response_code: 503,
        event_type: "link.created",
      });
      expect(log.body.data[0].attempts).toBeGreaterThanOrEqual(2);
      expect(Date.parse(log.body.data[0].next_attempt_at)).toBeGreaterThan(0);
      r.setAnswer(() => 200);
      await waitFor(() => r.accepted().length === 1, { timeoutMs: 20_000 });
      expect(new Set(r.requests.map((q) => q.id)).size).toBe(1);
      // The receiver has answered; the log shows it once the dispatcher has recorded the answer.
      const after = await waitFor(
        async () => {
          const d = (await owner("GET", `/webhooks/${hook.id}/deliveries`)).body.data[0];
          return d.status === "delivered" ? d : null;
        },
        { timeoutMs: 10_000, description: "the delivery logged as delivered" },
      );
      expect(after).toMatchObject({ status: "delivered", response_code: 200 });
    } finally {
      await r.close();
    }
  });

  it("lets its owner disable and re-enable an endpoint, and change its URL and events", async () => {
    const hook = (await call("POST", "/webhooks", { url: receiver.url, events: ["click"] })).body.data;
    const off = await call("PATCH", `/webhooks/${hook.id}`, { enabled: false });
    expectV1Success(off);
    expect(off.body.data).toMatchObject({ enabled: false, disabled_reason: "owner" });
    expect(off.body.data.disabled_at).not.toBeNull();
    const on = await call("PATCH", `/webhooks/${hook.id}`, {
      enabled: true,
      events: ["link.deleted"],
      url: `${receiver.url}?v=2`,
      description: "changed",
    });
    expectV1Success(on);
    expect(on.body.data).toMatchObject({
      enabled: true,
      disabled_reason: null,
      disabled_at: null,
      events: ["link.deleted"],
      url: `${receiver.url}?v=2`,
      description: "changed",
    });
    const deleted = await call("DELETE", `/webhooks/${hook.id}`);
    expectV1Success(deleted);
    expect(deleted.body.data).toEqual({ id: hook.id, deleted: true });
    expectV1Error(await call("GET", `/webhooks/${hook.id}`), 404, "NOT_FOUND");
  });

  it("refuses bad input with a validation error and changes nothing", async () => {
    const before = await bed.prisma.webhookEndpoint.count();
    for (const body of [
      {},
      { url: receiver.url, events: [] },
      { url: receiver.url, events: ["link.exploded"] },
      { url: "ftp://example.com/x", events: ["click"] },
      { url: "not a url", events: ["click"] },
      { url: receiver.url, events: ["click"], secret: "whsec_mine" },
      { url: "http://user:pass@127.0.0.1/x", events: ["click"] },
    ]) {
      expectV1Error(await call("POST", "/webhooks", body), 400, "VALIDATION_ERROR");
    }
    const hook = (await call("POST", "/webhooks", { url: receiver.url, events: ["click"] })).body.data;
    expectV1Error(await call("PATCH", `/webhooks/${hook.id}`, {}), 400, "VALIDATION_ERROR");
    expectV1Error(await call("PATCH", `/webhooks/${hook.id}`, { enabled: "yes" }), 400, "VALIDATION_ERROR");
    expectV1Error(await call("GET", "/webhooks/not-a-uuid"), 400, "VALIDATION_ERROR");
    expectV1Error(
      await call("GET", `/webhooks/${hook.id}/deliveries?per_page=1000`),
      400,
      "VALIDATION_ERROR",
    );
    expect(await bed.prisma.webhookEndpoint.count()).toBe(before + 1);
  });

  it("caps the endpoints per account", async () => {
    const owner = v1Caller(bed.stack, (await createTestAccount(bed.prisma, "wh-cap")).api_key);
    for (let i = 0; i < 10; i++)
      expectV1Success(await owner("POST", "/webhooks", { url: receiver.url, events: ["click"] }), 201);
    expectV1Error(
      await owner("POST", "/webhooks", { url: receiver.url, events: ["click"] }),
      403,
      "FORBIDDEN",
    );
  });
});
