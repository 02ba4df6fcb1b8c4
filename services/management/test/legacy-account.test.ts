// Older API: GET /api/account and PUT /api/account/update, the legacy envelope on failures, and the
// /api mount leaving /api/v1 alone.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  type Caller,
  expectLegacyError,
  expectLegacyMessage,
  LEGACY_DATE,
  legacyCaller,
  uniqueEmail,
  useLegacyStack,
} from "./legacy-helpers.ts";

describe("legacy account", () => {
  const bed = useLegacyStack();
  /** The workspace's owner: the user whose e-mail and password the older API's account update changes. */
  const ownerOf = (accountId: string) =>
    bed.prisma.user.findFirstOrThrow({ where: { memberships: { some: { accountId, role: "owner" } } } });

  async function newAccount(label: string): Promise<{ call: Caller; email: string; accountId: string }> {
    const email = uniqueEmail(label);
    const created = await bed.stack.createAccount(email);
    return { call: legacyCaller(bed.stack, created.api_key), email, accountId: created.account_id };
  }

  it("answers the account with the original product's field types", async () => {
    const { call, email, accountId } = await newAccount("acct");
    const res = await call("GET", "/account");
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["data", "error"]);
    expect(res.body.error).toBe(0);
    const data = res.body.data;
    expect(Object.keys(data).sort()).toEqual(
      ["avatar", "email", "expires", "id", "registered", "status", "username"].sort(),
    );
    expect(Number.isInteger(data.id)).toBe(true);
    expect(data.id).toBeGreaterThan(0);
    expect(data.email).toBe(email.toLowerCase());
    expect(data.username).toBe("");
    const hash = createHash("sha256").update(email.toLowerCase()).digest("hex");
    expect(data.avatar).toBe(`https://gravatar.com/avatar/${hash}?d=identicon`);
    expect(data.status).toBe("free");
    // No plan expiry: the format's latest date, never null (docs/legacy-api.md).
    expect(data.expires).toBe("9999-12-31 23:59:59");
    expect(data.registered).toMatch(LEGACY_DATE);
    const account = await bed.prisma.account.findUniqueOrThrow({ where: { id: accountId } });
    expect(data.id).toBe(account.legacyId);
    expect(data.registered).toBe(account.createdAt.toISOString().slice(0, 19).replace("T", " "));
  });

  it("shows the plan, its expiry and the username when the account has them", async () => {
    const { call, accountId } = await newAccount("pro");
    await bed.prisma.account.update({
      where: { id: accountId },
      data: { plan: "pro", planExpiresAt: new Date("2027-03-04T05:06:07.890Z"), username: "prouser" },
    });
    const { body } = await call("GET", "/account");
    expect(body.data).toMatchObject({ status: "pro", expires: "2027-03-04 05:06:07", username: "prouser" });
  });

  it("updates the e-mail address and the password", async () => {
    const { call, accountId } = await newAccount("upd");
    const newEmail = uniqueEmail("Renamed").toUpperCase();
    expectLegacyMessage(await call("PUT", "/account/update", { email: newEmail }), /updated/);
    expect((await call("GET", "/account")).body.data.email).toBe(newEmail.toLowerCase());

    expectLegacyMessage(await call("PUT", "/account/update", { password: "correct horse battery" }));
    const account = await ownerOf(accountId);
    expect(account.passwordHash).toMatch(/^\$argon2id\$/);
    expect(account.passwordHash).not.toContain("correct horse");

    const both = await call("PUT", "/account/update", {
      email: uniqueEmail("both"),
      password: "another password",
    });
    expectLegacyMessage(both);
    const after = await ownerOf(accountId);
    expect(after.passwordHash).not.toBe(account.passwordHash);
  });

  it("rejects bad updates with error 1 and changes nothing", async () => {
    const { call, email, accountId } = await newAccount("bad");
    const other = await newAccount("taken");
    const before = await ownerOf(accountId);

    expectLegacyError(await call("PUT", "/account/update", {}), 400, /email, password or both/);
    expectLegacyError(await call("PUT", "/account/update", { email: "not-an-email" }), 400, /email/);
    expectLegacyError(await call("PUT", "/account/update", { password: "short" }), 400, /password/);
    expectLegacyError(await call("PUT", "/account/update", { password: 12345678 }), 400, /password/);
    expectLegacyError(await call("PUT", "/account/update", "{not json"), 400, /JSON/);
    expectLegacyError(await call("PUT", "/account/update", { email: other.email }), 409, /already in use/);
    expectLegacyError(
      await call("PUT", "/account/update", { email: other.email.toUpperCase(), password: "long enough pw" }),
      409,
    );

    const after = await ownerOf(accountId);
    expect(after.email).toBe(email.toLowerCase());
    expect((await bed.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).email).toBe(
      email.toLowerCase(),
    );
    expect(after.passwordHash).toBe(before.passwordHash);
  });

  it("refuses missing and unknown keys with error 1 and 401", async () => {
    const anonymous = await fetch(`${bed.stack.origin}/api/account`);
    expectLegacyError(
      { status: anonymous.status, headers: anonymous.headers, body: await anonymous.json() },
      401,
    );
    const wrong = legacyCaller(bed.stack, `kurz_live_${"x".repeat(32)}`);
    expectLegacyError(await wrong("GET", "/account"), 401);
    expectLegacyError(await wrong("GET", "/domains"), 401);
  });

  it("answers unknown legacy routes with error 1 and 404, and leaves /api/v1 to the v1 API", async () => {
    const { call } = await newAccount("routes");
    expectLegacyError(await call("GET", "/nothing-here"), 404);
    // A known path with the wrong method: 405 with Allow, still in the legacy envelope.
    const wrongMethod = await call("POST", "/account");
    expectLegacyError(wrongMethod, 405);
    expect(wrongMethod.headers.get("allow")).toContain("GET");
    const v1 = await call("GET", "/v1/no-such-v1-route");
    expect(v1.status).toBe(404);
    expect(v1.body).toMatchObject({ success: false, error: { code: "NOT_FOUND" } });
  });
});
