// Standard Webhooks signing (https://www.standardwebhooks.com, spec 1.0): the signed content is
// `${id}.${timestamp}.${body}` with the timestamp in whole seconds, HMAC-SHA256 under the secret's
// base64-decoded bytes, sent as `v1,<base64>`.
import { createHmac } from "node:crypto";
import { signingKey } from "./secrets.ts";

export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac("sha256", signingKey(secret))
    .update(`${id}.${timestampSeconds}.${body}`)
    .digest("base64");
  return `v1,${mac}`;
}

export function webhookHeaders(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  return {
    "content-type": "application/json",
    "user-agent": "Kurz-Webhooks/1.0",
    "webhook-id": id,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": signWebhook(secret, id, timestampSeconds, body),
  };
}
