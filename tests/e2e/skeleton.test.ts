// The walking skeleton: one link created, followed and counted through all four services.
// Runs on both bus adapters: Redis Streams, and Kafka on librdkafka's mock cluster.
import { startKafkaMock } from "@kurz/bus/testing";
import { uniquePrefix, waitFor } from "@kurz/testing";
import { type Stack, stackTopics, startStack } from "@kurz/testing/stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const buses = [
  { name: "redis streams", start: () => startStack({ inProcess: true }) },
  {
    name: "kafka (librdkafka mock)",
    start: async () => {
      const prefix = uniquePrefix("e2e-kafka");
      const kafka = await startKafkaMock({ topics: stackTopics(prefix), partitions: 3 });
      const stack = await startStack({
        inProcess: true,
        prefix,
        bus: "kafka",
        kafkaBrokers: kafka.brokers,
        extraEnv: {
          KAFKA_SESSION_TIMEOUT_MS: "3000",
          KAFKA_REBALANCE_TIMEOUT_MS: "3000",
          KAFKA_HEARTBEAT_MS: "300",
        },
      });
      return {
        ...stack,
        stop: async () => {
          await stack.stop();
          await kafka.stop();
        },
      };
    },
  },
];

describe.each(buses)("walking skeleton ($name bus, embedded ClickHouse)", ({ start }) => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await start();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("creates a link, redirects to it, and counts the click", async () => {
    const account = await stack.createAccount(`skeleton-${Date.now()}@example.com`, 25);
    expect(account.api_key).toMatch(/^kurz_live_[0-9A-Za-z]{32}$/);
    expect(account.link_limit).toBe(25);
    const auth = { authorization: `Bearer ${account.api_key}`, "content-type": "application/json" };

    const created = await fetch(`${stack.origin}/api/v1/links`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ url: "https://example.com/landing?utm=1", title: "Landing" }),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("x-ratelimit-limit")).toBe("60");
    const { data: link } = (await created.json()) as {
      data: { id: string; short_code: string; short_url: string; clicks_count: number };
    };
    expect(link.short_url).toBe(`${stack.origin}/${link.short_code}`);
    expect(link.clicks_count).toBe(0);

    const followedAt = Date.now();
    const redirect = await fetch(link.short_url, {
      redirect: "manual",
      headers: { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0" },
    });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get("location")).toBe("https://example.com/landing?utm=1");
    expect(redirect.headers.get("cache-control")).toBe("private, max-age=0");

    let totalClicks = 0;
    await waitFor(
      async () => {
        const res = await fetch(`${stack.origin}/api/v1/analytics/${link.id}`, { headers: auth });
        if (res.status !== 200) return false;
        totalClicks = ((await res.json()) as { data: { total_clicks: number } }).data.total_clicks;
        return totalClicks >= 1;
      },
      // A liveness wait, not a speed target: on the Kafka mock the stack's first click also waits for
      // analytics' consumer group to form. It shows after 1.5–9.5 s on a host with slow system calls,
      // too near a 15 s wait.
      { timeoutMs: 30_000, intervalMs: 100, description: "the click to show in analytics" },
    );
    console.log(`click visible in analytics after ${Date.now() - followedAt} ms`);
    expect(totalClicks).toBe(1);
  });

  it("refuses requests without a valid key in the v1 envelope", async () => {
    const res = await fetch(`${stack.origin}/api/v1/links`, { method: "POST", body: "{}" });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ success: false, error: { code: "UNAUTHORIZED" } });
  });

  it("answers 404 for an unknown short code", async () => {
    const res = await fetch(`${stack.origin}/nope-${Date.now()}`, { redirect: "manual" });
    expect(res.status).toBe(404);
  });
});
