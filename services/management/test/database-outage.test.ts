// Postgres going away under the API (a restart, a network cut): management answers 503
// SERVICE_UNAVAILABLE with Retry-After in the caller's envelope, on the direct path (the create) and
// through Express (Prisma reads, the older API), writes nothing, and serves again once the database is
// back. The fault suite found a create whose connection a Postgres restart terminated answered 500
// (tests/chaos/faults.test.ts); here a TCP proxy between management and Postgres cuts the connections
// and refuses new ones, deterministically.
import { useStackBehindProxy } from "@kurz/testing/use-stack";
import { describe, expect, it } from "vitest";
import { expectLegacyError, legacyCaller, uniqueEmail } from "./legacy-helpers.ts";
import { expectV1Error, startLinksStack, v1Caller } from "./links-helpers.ts";

const bed = useStackBehindProxy("outage", (databaseUrl) => startLinksStack({ DATABASE_URL: databaseUrl }));

describe("the database unreachable", () => {
  it("answers 503 with Retry-After in the caller's envelope, writes nothing, and serves again after", async () => {
    const account = await bed.stack.createAccount(uniqueEmail("outage"));
    const v1 = v1Caller(bed.stack, account.api_key);
    const legacy = legacyCaller(bed.stack, account.api_key);
    // Before the cut: a link, and the gateway has the key in its cache (checking a key needs management).
    const before = await v1("POST", "/links", { url: "https://example.com/before" });
    expect(before.status, JSON.stringify(before.body)).toBe(201);

    await bed.db.proxy.cut();
    const refused = [
      // The create on the direct path (its statement on the pool), one with a body through Express,
      // a Prisma read, and the older API.
      await v1("POST", "/links", { url: "https://example.com/during" }),
      await v1("POST", "/links", JSON.stringify({ url: "https://example.com/during-express" }), {
        "content-type": "application/json; charset=utf-8",
      }),
      await v1("GET", "/links"),
      await v1("GET", `/links/${before.body.data.id}`),
    ];
    for (const res of refused) {
      expectV1Error(res, 503, "SERVICE_UNAVAILABLE");
      expect(res.headers.get("retry-after")).toBe("1");
    }
    const legacyRes = await legacy("GET", "/account");
    expectLegacyError(legacyRes, 503);
    expect(legacyRes.headers.get("retry-after")).toBe("1");

    await bed.db.proxy.open();
    const after = await v1("POST", "/links", { url: "https://example.com/after" });
    expect(after.status, JSON.stringify(after.body)).toBe(201);
    const urls = await bed.prisma.link.findMany({
      where: { accountId: account.account_id },
      select: { originalUrl: true },
    });
    expect(urls.map((l) => l.originalUrl).sort()).toEqual([
      "https://example.com/after",
      "https://example.com/before",
    ]);
  });
});
