// What management answers for a live key with every scope (its cached record), for the gateway's tests;
// `fields` on top.
import { type KeyRecord, SCOPES } from "@kurz/contracts";

export function keyRecord(fields: Partial<KeyRecord> = {}): KeyRecord {
  return {
    key_id: "00000000-0000-4000-8000-0000000000aa",
    account_id: "00000000-0000-4000-8000-0000000000bb",
    user_id: null,
    scopes: [...SCOPES],
    name: "k",
    rate_limit_per_minute: 60,
    rate_limit_per_hour: 1000,
    expires_at: null,
    revoked: false,
    ...fields,
  };
}
