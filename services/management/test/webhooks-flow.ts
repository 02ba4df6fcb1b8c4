// The whole-stack webhook flow, run on each bus adapter (webhooks-api.test.ts: Redis Streams,
// webhooks-kafka.test.ts: Kafka): link changes through the outbox and clicks through the redirect reach
// a local receiver, signed, in order, clicks batched, and the delivery log says so.

import type { PrismaClient } from "@kurz/db";
import { waitFor } from "@kurz/testing";
import type { Stack } from "@kurz/testing/stack";
import { expect } from "vitest";
import { createTestAccount, expectV1Success, v1Caller } from "./links-helpers.ts";
import { type Receiver, verifyStandardWebhook } from "./webhooks-helpers.ts";

export async function runWebhookFlow(stack: Stack, receiver: Receiver, prisma: PrismaClient) {
  const account = await createTestAccount(prisma, "wh-flow");
  const call = v1Caller(stack, account.api_key);
  const created = await call("POST", "/webhooks", {
    url: receiver.url,
    events: ["link.created", "link.updated", "link.deleted", "click"],
    description: "flow",
  });
  expectV1Success(created, 201);
  const secret: string = created.body.data.secret;
  const webhookId: string = created.body.data.id;

  const link = await call("POST", "/links", { url: "https://example.com/flow", title: "v1" });
  expectV1Success(link, 201);
  const linkId: string = link.body.data.id;
  expectV1Success(await call("PATCH", `/links/${linkId}`, { title: "v2" }));
  expectV1Success(await call("PATCH", `/links/${linkId}`, { title: "v3" }));

  const visit = await fetch(`${stack.origin}/${link.body.data.short_code}`, {
    redirect: "manual",
    headers: { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) webhook-flow" },
  });
  expect(visit.status).toBe(302);
  await visit.body?.cancel();

  const linkEvents = () => receiver.accepted().filter((r) => r.json?.data?.link?.id === linkId);
  await waitFor(() => linkEvents().length >= 3, { timeoutMs: 20_000, description: "three link events" });
  expect(linkEvents().map((r) => [r.json.type, r.json.data.link.title])).toEqual([
    ["link.created", "v1"],
    ["link.updated", "v2"],
    ["link.updated", "v3"],
  ]);
  const clicks = () => receiver.accepted().filter((r) => r.json?.type === "click");
  await waitFor(() => clicks().length >= 1, { timeoutMs: 20_000, description: "a click delivery" });
  expect(clicks()[0]!.json.data.clicks[0]).toMatchObject({
    link_id: linkId,
    user_agent: expect.stringContaining("webhook-flow"),
  });

  expectV1Success(await call("DELETE", `/links/${linkId}`));
  await waitFor(() => linkEvents().length >= 4, { timeoutMs: 20_000, description: "the delete event" });
  expect(linkEvents()[3]!.json).toMatchObject({ type: "link.deleted", data: { link: { id: linkId } } });

  for (const r of receiver.accepted()) {
    expect(verifyStandardWebhook(secret, r.headers, r.body, Math.floor(Date.now() / 1000))).toBe(true);
  }
  // Every accepted request is logged as delivered once the dispatcher has recorded the answer.
  const log = await waitFor(
    async () => {
      const res = await call("GET", `/webhooks/${webhookId}/deliveries?per_page=100`);
      const all = res.body.data as { status: string }[];
      return all.length === receiver.accepted().length && all.every((d) => d.status === "delivered")
        ? res
        : null;
    },
    { timeoutMs: 10_000, description: "every delivery logged as delivered" },
  );
  expectV1Success(log);
  expect(log.body.meta.total).toBe(receiver.accepted().length);
  for (const d of log.body.data) {
    expect(d).toMatchObject({ status: "delivered", attempts: 1, response_code: 200, next_attempt_at: null });
    expect(d.latency_ms).toBeGreaterThanOrEqual(0);
  }
  return { call, webhookId, secret };
}
