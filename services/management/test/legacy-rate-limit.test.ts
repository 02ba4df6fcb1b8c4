// The older API's limit: 30 requests per minute per key, with the rate-limit headers on every
// response and 429 in the legacy envelope once exceeded. Counted apart from the v1 API's windows.
import { withMinuteLeft } from "@kurz/testing";
import { useStack } from "@kurz/testing/use-stack";
import { describe, expect, it } from "vitest";
import { expectLegacyError, legacyCaller, uniqueEmail } from "./legacy-helpers.ts";

describe("legacy rate limit", () => {
  const bed = useStack({ inProcess: true });

  it("allows 30 requests a minute per key, then answers 429 with error 1 and Retry-After", async () => {
    const { api_key } = await bed.stack.createAccount(uniqueEmail("limit"));
    const call = legacyCaller(bed.stack, api_key);

    // The window is aligned to the clock minute; 31 requests take about a second, so 8 s left in it
    // is room enough (waiting for 40 s would cost this file 20 s on average, and for 15 s a quarter
    // of the runs up to 15 s).
    await withMinuteLeft(8);

    const remaining: number[] = [];
    for (let i = 0; i < 30; i++) {
      const res = await call("GET", "/account");
      expect(res.status).toBe(200);
      expect(res.headers.get("x-ratelimit-limit")).toBe("30");
      remaining.push(Number(res.headers.get("x-ratelimit-remaining")));
      const reset = Number(res.headers.get("x-ratelimit-reset"));
      expect(Number.isInteger(reset)).toBe(true);
      expect(reset % 60).toBe(0);
    }
    expect(remaining).toEqual(Array.from({ length: 30 }, (_, i) => 29 - i));

    const limited = await call("GET", "/domains");
    expectLegacyError(limited, 429, /Rate limit exceeded/);
    expect(limited.headers.get("x-ratelimit-limit")).toBe("30");
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0");
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);

    // The v1 API keeps its own, larger window for the same key.
    const v1 = await fetch(`${bed.stack.origin}/api/v1/links/00000000-0000-4000-8000-000000000000`, {
      headers: { authorization: `Bearer ${api_key}` },
    });
    expect(v1.status).not.toBe(429);
    expect(v1.headers.get("x-ratelimit-limit")).toBe("60");

    // Another key of another account is not affected.
    const fresh = legacyCaller(
      bed.stack,
      (await bed.stack.createAccount(uniqueEmail("limit-other"))).api_key,
    );
    const ok = await fresh("GET", "/account");
    expect(ok.status).toBe(200);
    expect(ok.headers.get("x-ratelimit-remaining")).toBe("29");
  }, 180_000);
});
