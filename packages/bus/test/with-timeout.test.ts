import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { TimeoutError, withTimeout } from "../src/with-timeout.ts";

describe("withTimeout", () => {
  it("settles like the work when it is in time", async () => {
    await expect(
      withTimeout(
        sleep(5).then(() => "done"),
        1000,
        "sleep",
      ),
    ).resolves.toBe("done");
    await expect(withTimeout(Promise.reject(new Error("boom")), 1000, "work")).rejects.toThrow("boom");
  });

  it("rejects with a TimeoutError naming the work, and calls onTimeout once, when it is late", async () => {
    let cancelled = 0;
    const late = withTimeout(sleep(1000), 20, "redis ping", () => cancelled++);
    await expect(late).rejects.toBeInstanceOf(TimeoutError);
    await expect(late).rejects.toMatchObject({
      message: "redis ping timed out after 20 ms",
      code: "ETIMEOUT",
    });
    expect(cancelled).toBe(1);
    await expect(withTimeout(sleep(1000), 10, "")).rejects.toThrow(/^timed out after 10 ms$/);
  });

  it("turns a function's synchronous throw into the rejection", async () => {
    const throwing = () => {
      throw new Error("sync");
    };
    await expect(withTimeout(throwing, 1000, "check")).rejects.toThrow("sync");
    await expect(withTimeout(() => 7, 1000, "value")).resolves.toBe(7);
  });
});
