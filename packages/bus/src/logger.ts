import type { BusLogger } from "./types.ts";

/** Used when the caller passes no logger: problems still reach stderr, routine noise does not. */
export const stderrLogger: BusLogger = {
  info() {},
  warn(o, m) {
    console.warn(JSON.stringify({ level: "warn", msg: m, ...o }));
  },
  error(o, m) {
    console.error(JSON.stringify({ level: "error", msg: m, ...o }));
  },
};

/** Errors are logged by message only: stacks and causes may carry payload data. */
export function errorInfo(error: unknown): { error: string } {
  return { error: error instanceof Error ? error.message : String(error) };
}
