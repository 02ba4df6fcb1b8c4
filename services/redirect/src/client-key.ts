// Who the redirect's per-client budgets count (password attempts, unknown-code lookups, contact
// forms): the client's network, an IPv6 client by its /64, the same network the gateway's budgets
// count (service-kit's clientNetwork). The key is a hash: Redis keys show up in monitoring tools, raw
// addresses must not (docs/redirect.md).
import { createHash } from "node:crypto";
import { clientNetwork } from "@kurz/service-kit";

export function clientKey(ip: string | null): string {
  return createHash("sha256").update(clientNetwork(ip)).digest("base64url").slice(0, 22);
}
