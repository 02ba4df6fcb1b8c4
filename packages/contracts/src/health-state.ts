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

/** A destination that answered usefully: the check ends a broken spell. */
const HEALTHY: readonly HealthState[] = ["ok", "redirected"];

/**
 * The states that count towards a broken link (docs/health.md): every state but the healthy ones and
 * `refused` (Kurz would not fetch it, so the check says nothing about the destination).
 */
export const FAILING_HEALTH_STATES: readonly HealthState[] = HealthState.options.filter(
  (s) => s !== "refused" && !HEALTHY.includes(s),
);

/** Checks that must fail in a row before a link is broken. */
export const BROKEN_AFTER_FAILURES = 2;

export function isFailingHealthState(state: HealthState): boolean {
  return FAILING_HEALTH_STATES.includes(state);
}

export function isHealthyHealthState(state: HealthState): boolean {
  return HEALTHY.includes(state);
}
