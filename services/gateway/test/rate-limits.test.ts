// Per-key rate limits through the real stack, with small limits so 429 comes quickly: both v1 windows
// (limits stored on the key record), the legacy limit, headers on every answer, 429 details.
import type { Stack } from "@kurz/testing/stack";
import { useStack } from "@kurz/testing/use-stack";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * Fixed windows are aligned to the clock: start a sequence well inside one, so none rolls over midway.
 * A sequence here is a few in-process requests (well under a second even on a loaded machine); a
 * wider margin makes a quarter of the runs wait up to 15 s for the next minute.
 */
async function awayFromWindowEdge(seconds: number, margin = 5): Promise<void> {
  const into = (Date.now() / 1000) % seconds;
  if (into > seconds - margin) await new Promise((r) => setTimeout(r, (seconds - into + 0.2) * 1000));
}

describe("rate limits", () => {
  const bed = useStack({
    inProcess: true,
    extraEnv: {
      RATE_LIMIT_PER_MINUTE: "5",
      RATE_LIMIT_PER_HOUR: "1000",
      LEGACY_RATE_LIMIT_PER_MINUTE: "3",
    },
  });
  type Account = Awaited<ReturnType<Stack["createAccount"]>>;
  let minute: Account;
  let hour: Account;
  let legacy: Account;

  beforeAll(async () => {
    const email = (label: string) => `ratelimit-${label}-${process.pid}-${Date.now()}@example.com`;
    [minute, hour, legacy] = await Promise.all([
      bed.stack.createAccount(email("minute")),
      bed.stack.createAccount(email("hour")),
      bed.stack.createAccount(email("legacy")),
    ]);
  });

  const get = (key: string, path: string) =>
    fetch(`${bed.stack.origin}${path}`, { headers: { authorization: `Bearer ${key}` } });
  const header = (res: Response, name: string) => Number(res.headers.get(name));

  it("counts every v1 endpoint against the key's per-minute limit, then answers 429", async () => {
    await awayFromWindowEdge(60);
    const paths = [
      "/api/v1/account",
      "/api/v1/account/usage",
      "/api/v1/nothing",
      "/api/v1/account",
      "/api/v1/qr/abc",
    ];
    const nextMinute = (Math.floor(Date.now() / 60_000) + 1) * 60;
    for (const [i, path] of paths.entries()) {
      const res = await get(minute.api_key, path);
      expect(res.status, path).not.toBe(429);
      expect(header(res, "x-ratelimit-limit")).toBe(5);
      expect(header(res, "x-ratelimit-remaining")).toBe(4 - i);
      expect(header(res, "x-ratelimit-reset")).toBe(nextMinute);
    }
    const limited = await get(minute.api_key, "/api/v1/account");
    expect(limited.status).toBe(429);
    const body = (await limited.json()) as {
      success: boolean;
      error: {
        code: string;
        message: string;
        details: { limit: number; window: string; retry_after: number };
      };
    };
    expect(body.success).toBe(false);
    expect(body.error.code).toBe("RATE_LIMIT_EXCEEDED");
    expect(body.error.details).toEqual({ limit: 5, window: "1m", retry_after: expect.any(Number) });
    const retryAfter = body.error.details.retry_after;
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(header(limited, "retry-after")).toBe(retryAfter);
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(header(limited, "x-ratelimit-limit")).toBe(5);
    expect(header(limited, "x-ratelimit-reset")).toBe(nextMinute);

    // Other keys have their own budget; a request without a valid key is not counted against anyone.
    expect((await get(hour.api_key, "/api/v1/account")).status).toBe(200);
    expect((await fetch(`${bed.stack.origin}/api/v1/account`)).status).toBe(401);
  });

  it("enforces the hourly limit stored on the key, reporting window 1h", async () => {
    await awayFromWindowEdge(3600);
    // Limits live on the key record. A new key, given a tiny hourly budget and a large minute one
    // before its first use (so before the gateway caches its record).
    const created = await fetch(`${bed.stack.origin}/api/v1/account/keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${hour.api_key}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "hourly" }),
    });
    expect(created.status).toBe(201);
    const fresh = ((await created.json()) as { data: { id: string; key: string } }).data;
    await bed.prisma.apiKey.update({
      where: { id: fresh.id },
      data: { rateLimitPerMinute: 100, rateLimitPerHour: 4 },
    });

    const nextHour = (Math.floor(Date.now() / 3_600_000) + 1) * 3600;
    for (let i = 0; i < 4; i++) {
      const res = await get(fresh.key, "/api/v1/account");
      expect(res.status).toBe(200);
      // The hour window has fewer requests left, so the headers report it.
      expect(header(res, "x-ratelimit-limit")).toBe(4);
      expect(header(res, "x-ratelimit-remaining")).toBe(3 - i);
      expect(header(res, "x-ratelimit-reset")).toBe(nextHour);
    }
    const limited = await get(fresh.key, "/api/v1/account/usage");
    expect(limited.status).toBe(429);
    const body = (await limited.json()) as { error: { code: string; details: Record<string, unknown> } };
    expect(body.error.code).toBe("RATE_LIMIT_EXCEEDED");
    expect(body.error.details).toEqual({ limit: 4, window: "1h", retry_after: expect.any(Number) });
    expect(body.error.details.retry_after as number).toBeLessThanOrEqual(3600);
    expect(header(limited, "retry-after")).toBe(body.error.details.retry_after);
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(header(limited, "x-ratelimit-reset")).toBe(nextHour);
  });

  it("limits the older API per key per minute, in its own envelope and its own budget", async () => {
    await awayFromWindowEdge(60);
    for (let i = 0; i < 3; i++) {
      const res = await get(legacy.api_key, "/api/account");
      expect(res.status).toBe(200);
      expect(header(res, "x-ratelimit-limit")).toBe(3);
      expect(header(res, "x-ratelimit-remaining")).toBe(2 - i);
    }
    const limited = await get(legacy.api_key, "/api/domains");
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({ error: 1, message: expect.stringMatching(/rate limit/i) });
    expect(header(limited, "retry-after")).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0");
    // The v1 budget of the same key is separate.
    const v1 = await get(legacy.api_key, "/api/v1/account");
    expect(v1.status).toBe(200);
    expect(header(v1, "x-ratelimit-limit")).toBe(5);
  });
});
