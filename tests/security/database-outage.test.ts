// The API while management's database is unreachable (a restart, a cut): every answer is a 503 in the
// route's envelope with Retry-After, and gives away nothing of the database or the failure (host,
// port, name, driver, SQLSTATE, stack); no key the gateway has not already checked gets in, nor a
// forged identity; nothing is written, to the caller's rows or another tenant's. A TCP proxy between
// management and Postgres that the test cuts.
import { API_KEY_PREFIX } from "@kurz/contracts";
import { startStack } from "@kurz/testing/stack";
import { useStackBehindProxy } from "@kurz/testing/use-stack";
import { describe, expect, it } from "vitest";
import {
  attackerAndVictim,
  expectLegacyError,
  expectV1Error,
  type RawResponse,
  RELAXED_LIMITS,
  raw,
} from "./attack.ts";

const bed = useStackBehindProxy("sec_outage", (databaseUrl) =>
  startStack({ inProcess: true, extraEnv: { ...RELAXED_LIMITS, DATABASE_URL: databaseUrl } }),
);

/** Nothing in an answer that names the database or the failure behind it. */
function expectNothingInternal(res: RawResponse): void {
  const text = res.text.toLowerCase();
  const database_ = new URL(bed.db.database.url);
  for (const secret of [
    database_.pathname.slice(1).toLowerCase(),
    `:${bed.db.proxy.port}`,
    `:${database_.port || 5432}`,
    "postgres",
    "prisma",
    "econn",
    "57p0",
    "terminat",
    "sqlstate",
    "    at ",
  ]) {
    expect(text, `answer mentions ${secret}`).not.toContain(secret);
  }
}

describe("management's database unreachable", () => {
  it("answers 503 with Retry-After in the route's envelope, tells nothing of the database, writes nothing", async () => {
    const { attacker, victim, asAttacker, asVictim } = await attackerAndVictim(bed.stack, "outage");
    const victimLink = await asVictim("POST", "/api/v1/links", { url: "https://victim.example/kept" });
    expect(victimLink.status, victimLink.text).toBe(201);
    // The attacker's key is checked (and cached by the gateway) before the cut.
    expect((await asAttacker("GET", "/api/v1/account")).status).toBe(200);

    await bed.db.proxy.cut();
    try {
      const v1 = [
        await asAttacker("GET", `/api/v1/links/${victimLink.body.data.id}`),
        await asAttacker("PATCH", `/api/v1/links/${victimLink.body.data.id}`, {
          title: "taken over",
          is_active: false,
        }),
        await asAttacker("DELETE", `/api/v1/links/${victimLink.body.data.id}`),
        await asAttacker("POST", "/api/v1/links", { url: "https://attacker.example/x", alias: "kept-code" }),
        await asAttacker("GET", "/api/v1/links?search=%27%3B%20DROP%20TABLE%20links%3B--"),
      ];
      for (const res of v1) {
        expectV1Error(res, 503, "SERVICE_UNAVAILABLE");
        expect(res.headers["retry-after"]).toBe("1");
        expectNothingInternal(res);
      }
      const legacy = await asAttacker("GET", "/api/domains");
      expectLegacyError(legacy, 503);
      expect(legacy.headers["retry-after"]).toBe("1");
      expectNothingInternal(legacy);
      // Malformed input is still refused for what it is, before any database work.
      const malformed = await asAttacker("POST", "/api/v1/links", "{not json");
      expectV1Error(malformed, 400, "VALIDATION_ERROR");
    } finally {
      await bed.db.proxy.open();
    }

    const victimRow = await bed.prisma.link.findUniqueOrThrow({ where: { id: victimLink.body.data.id } });
    expect(victimRow).toMatchObject({
      accountId: victim.account_id,
      originalUrl: "https://victim.example/kept",
    });
    expect(await bed.prisma.link.count({ where: { accountId: attacker.account_id } })).toBe(0);
  });

  it("lets no unchecked key or forged identity in while keys cannot be checked", async () => {
    const { victim } = await attackerAndVictim(bed.stack, "outage-keys");
    await bed.db.proxy.cut();
    try {
      const unknownKey = await raw(bed.stack.origin, "GET", "/api/v1/account", {
        // Well-formed (a malformed one is refused without a lookup), never issued.
        headers: { authorization: `Bearer ${API_KEY_PREFIX}${"0".repeat(32)}` },
      });
      const forged = await raw(bed.stack.origin, "GET", "/api/v1/account", {
        headers: { "x-kurz-account-id": victim.account_id, "x-forwarded-for": "10.0.0.1" },
      });
      // The victim's real key, never seen by the gateway before the cut, cannot be checked either.
      const unchecked = await raw(bed.stack.origin, "GET", "/api/v1/account", {
        headers: { authorization: `Bearer ${victim.api_key}` },
      });
      for (const res of [unknownKey, unchecked]) {
        expectV1Error(res, 503, "SERVICE_UNAVAILABLE");
        expectNothingInternal(res);
      }
      expectV1Error(forged, 401, "UNAUTHORIZED");
    } finally {
      await bed.db.proxy.open();
    }
  });
});
