import { createClickHouse } from "@kurz/clickhouse";
import { getFreePort } from "@kurz/testing";
import { describe, expect, it } from "vitest";
import { isTransient, retryWhileTransient } from "../src/ingest/transient.ts";

const quiet = { warn: () => {}, info: () => {} };

/**
 * A port nothing listens on: connections to it are refused. Claimed below the ephemeral range (getFreePort),
 * not let go of by a listener, which the kernel may hand to another test's server meanwhile.
 */
const closedPort = () => getFreePort();

describe("isTransient", () => {
  it("treats an unreachable ClickHouse server as an outage", async () => {
    const port = await closedPort();
    const err = await createClickHouse({ url: `http://127.0.0.1:${port}` }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(isTransient(err)).toBe(true);
  });

  it("treats a bad statement as permanent", async () => {
    const ch = await createClickHouse({ path: ":memory:", database: "transient_test" });
    try {
      const err = await ch.query("SELECT no_such_column FROM system.one").catch((e: unknown) => e);
      expect(isTransient(err)).toBe(false);
    } finally {
      await ch.close();
    }
  });
});

describe("retryWhileTransient", () => {
  it("waits out an outage and resumes", async () => {
    const port = await closedPort();
    let calls = 0;
    const result = await retryWhileTransient(
      async () => {
        calls++;
        if (calls < 3) await fetch(`http://127.0.0.1:${port}/`); // refused: an outage
        return "stored";
      },
      { signal: new AbortController().signal, logger: quiet, what: "test", initialMs: 10, maxMs: 20 },
    );
    expect(result).toBe("stored");
    expect(calls).toBe(3);
  });

  it("gives up at once on a permanent error, and when stopping", async () => {
    const permanent = new Error("Code: 27. Cannot parse input");
    await expect(
      retryWhileTransient(() => Promise.reject(permanent), {
        signal: new AbortController().signal,
        logger: quiet,
        what: "test",
      }),
    ).rejects.toBe(permanent);

    const stopping = new AbortController();
    const port = await closedPort();
    const pending = retryWhileTransient(() => fetch(`http://127.0.0.1:${port}/`), {
      signal: stopping.signal,
      logger: quiet,
      what: "test",
      initialMs: 60_000,
    });
    setTimeout(() => stopping.abort(), 50);
    await expect(pending).rejects.toThrow();
  });
});
