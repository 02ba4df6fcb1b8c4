import { describe, expect, it } from "vitest";
import {
  apiKeyCacheKey,
  INTERNAL_HEADERS,
  INVALIDATION_CHANNEL,
  invalidationEntries,
  invalidationMessage,
  invalidationMessages,
  KeyRecord,
  redirectKey,
  sessionCacheKey,
} from "../src/index.ts";
import { ACCOUNT_ID, KEY_ID } from "./samples.ts";

describe("internal shapes", () => {
  const record = {
    key_id: KEY_ID,
    account_id: ACCOUNT_ID,
    user_id: null,
    scopes: ["links:read", "analytics:read"],
    name: "CI",
    rate_limit_per_minute: 60,
    rate_limit_per_hour: 1000,
    expires_at: null,
    revoked: false,
  };

  it("accepts the key record management's lookup answers", () => {
    expect(KeyRecord.parse(record)).toEqual(record);
    expect(
      KeyRecord.parse({ ...record, expires_at: "2027-01-01T00:00:00.000Z", revoked: true }).revoked,
    ).toBe(true);
    expect(KeyRecord.safeParse({ ...record, rate_limit_per_minute: 0 }).success).toBe(false);
  });

  it("names Redis keys and headers distinctly", () => {
    expect(apiKeyCacheKey("ab12")).toBe("apikey:ab12");
    expect(apiKeyCacheKey("x")).not.toBe(redirectKey("x"));
    expect(sessionCacheKey("ab12")).toBe("session:ab12");
    expect(sessionCacheKey("x")).not.toBe(apiKeyCacheKey("x"));
    expect(INVALIDATION_CHANNEL).toMatch(/\S/);
    expect(Object.values(INTERNAL_HEADERS)).toEqual([
      "x-kurz-internal-token",
      "x-kurz-caller",
      "x-kurz-forward-token",
      "x-kurz-account-id",
      "x-kurz-key-id",
      "x-kurz-session-id",
      "x-kurz-user-id",
      "x-kurz-scopes",
      "x-kurz-role",
      "x-kurz-two-factor",
      "x-kurz-device",
      "x-kurz-client",
      "x-kurz-ip-prefix",
      "x-kurz-agent",
      "x-request-id",
      "x-kurz-admin-token",
      "x-kurz-edge-request",
    ]);
    expect(new Set(Object.values(INTERNAL_HEADERS)).size).toBe(Object.keys(INTERNAL_HEADERS).length);
  });
});

describe("invalidation messages", () => {
  it("carry several entries, read back in order, and a single entry is the message alone", () => {
    const entries = [
      "abc1234",
      invalidationMessage("domain", "go.brand.test"),
      invalidationMessage("overlay", "7"),
    ];
    expect(invalidationEntries(invalidationMessages(entries))).toEqual(entries);
    expect(invalidationMessages(["abc1234"])).toBe("abc1234");
    expect(invalidationEntries("abc1234")).toEqual(["abc1234"]);
  });
});
