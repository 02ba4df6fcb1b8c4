import type { ServerResponse } from "node:http";
import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { MAX_PENDING, RedirectWrites } from "./turn-writes.ts";

/** Records what the writer does with a response; `fail` makes writeHead throw like a used response. */
function response(log: string[], name: string, fail = false) {
  return {
    writeHead(status: number, headers: Record<string, string | number>) {
      if (fail) throw new Error(`headers already sent for ${name}`);
      log.push(`${name} ${status} ${headers.location} ${headers["cache-control"]}`);
    },
    end() {
      log.push(`${name} end`);
    },
    destroy() {},
  } as unknown as ServerResponse;
}

describe("RedirectWrites", () => {
  it("writes the responses of one turn together at its end, in order", async () => {
    const log: string[] = [];
    const writes = new RedirectWrites(() => {});
    writes.send(response(log, "a"), 302, "https://example.com/a");
    writes.send(response(log, "b"), 307, "https://example.com/b");
    expect(log).toEqual([]);
    await nextTurn();
    expect(log).toEqual([
      "a 302 https://example.com/a private, max-age=0",
      "a end",
      "b 307 https://example.com/b private, max-age=0",
      "b end",
    ]);
  });

  it(`never holds more than ${MAX_PENDING} responses: the one that fills the batch writes it at once`, async () => {
    const log: string[] = [];
    const writes = new RedirectWrites(() => {});
    for (let i = 0; i < MAX_PENDING - 1; i++)
      writes.send(response(log, `r${i}`), 302, `https://example.com/${i}`);
    expect(log).toEqual([]);
    writes.send(response(log, "full"), 302, "https://example.com/full");
    expect(log.filter((l) => l.endsWith(" end"))).toHaveLength(MAX_PENDING);
    writes.send(response(log, "next"), 302, "https://example.com/next");
    expect(log.at(-1)).toBe("full end");
    await nextTurn();
    expect(log.at(-1)).toBe("next end");
  });

  it("reports a response that cannot be written and still writes the others", async () => {
    const log: string[] = [];
    const failed: unknown[] = [];
    const writes = new RedirectWrites((err) => failed.push(err));
    writes.send(response(log, "a"), 302, "https://example.com/a");
    writes.send(response(log, "used", true), 302, "https://example.com/used");
    writes.send(response(log, "c"), 302, "https://example.com/c");
    await nextTurn();
    expect(log.filter((l) => l.endsWith(" end"))).toEqual(["a end", "c end"]);
    expect(failed).toHaveLength(1);
  });
});
