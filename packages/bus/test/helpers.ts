import type { BusLogger } from "../src/index.ts";

/** Polls until `check` returns true; fails with `what` after `timeoutMs`. */
export async function waitFor(what: string, check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const pause = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Keeps test output clean; BUS_TEST_LOG=1 prints what the bus logs. */
export function testLogger(): BusLogger {
  const print = process.env.BUS_TEST_LOG === "1";
  const write = (level: string) => (o: object, m?: string) => {
    if (print) console.log(level, m, JSON.stringify(o));
  };
  return { info: write("info"), warn: write("warn"), error: write("error") };
}
