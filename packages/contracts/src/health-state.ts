// A link's health states (docs/health.md), apart from health.ts so link.ts's list filter can name them
// without an import cycle (health.ts imports link.ts).
import * as z from "zod";

export const HealthState = z.enum([
  "ok",
  "redirected",
  "client_error",
  "server_error",
  "tls_error",
  "dns_error",
  "timeout",
  "connection_error",
  "redirect_loop",
  "refused",
]);
export type HealthState = z.infer<typeof HealthState>;

/**
 * The states that count towards a broken link (docs/health.md): the destination did not answer usefully.
 * `ok` and `redirected` are healthy; `refused` (Kurz would not fetch it) is neither and changes nothing.
 */
export const FAILING_HEALTH_STATES = [
  "client_error",
  "server_error",
  "tls_error",
  "dns_error",
  "timeout",
  "connection_error",
  "redirect_loop",
] as const satisfies readonly HealthState[];

/** Checks that must fail in a row before a link is broken. */
export const BROKEN_AFTER_FAILURES = 2;

export function isFailingHealthState(state: HealthState): boolean {
  return (FAILING_HEALTH_STATES as readonly HealthState[]).includes(state);
}

export function isHealthyHealthState(state: HealthState): boolean {
  return state === "ok" || state === "redirected";
}
