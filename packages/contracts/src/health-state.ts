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
