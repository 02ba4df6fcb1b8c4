import { describe, expect, it } from "vitest";
import { AccountLimits, UpdateAccountLimitsBody } from "../src/index.ts";

describe("the operators' account update", () => {
  it("takes an e-mail and at least one of the plan status, the link limit and the rate limits", () => {
    expect(UpdateAccountLimitsBody.parse({ email: "a@example.com", status: "pro" })).toEqual({
      email: "a@example.com",
      status: "pro",
    });
    expect(
      UpdateAccountLimitsBody.safeParse({
        email: "a@example.com",
        link_limit: 0,
        rate_limit_per_minute: 1,
        rate_limit_per_hour: 1,
      }).success,
    ).toBe(true);
    const nothing = UpdateAccountLimitsBody.safeParse({ email: "a@example.com" });
    expect(nothing.error?.issues[0]?.message).toBe(
      "Give at least one of link_limit, rate_limit_per_minute, rate_limit_per_hour, status",
    );
  });

  it("refuses unknown members, fractions, negatives and a status that is not a plain word", () => {
    for (const body of [
      { email: "a@example.com", plan: "pro" },
      { email: "a@example.com", link_limit: 1.5 },
      { email: "a@example.com", link_limit: -1 },
      { email: "a@example.com", rate_limit_per_minute: 0 },
      { email: "a@example.com", status: "Pro" },
      { email: "a@example.com", status: "pro plan" },
      { email: "a@example.com", status: "" },
      { email: "not an e-mail", status: "pro" },
    ]) {
      expect(UpdateAccountLimitsBody.safeParse(body).success, JSON.stringify(body)).toBe(false);
    }
  });

  it("answers the limits in force", () => {
    const limits = {
      id: "6f1c1c4e-8f59-4d7c-9d1c-2b8f7e0f9a11",
      email: "a@example.com",
      status: "pro",
      link_limit: 5000,
      rate_limit_per_minute: 120,
      rate_limit_per_hour: 5000,
      keys_updated: 2,
    };
    expect(AccountLimits.parse(limits)).toEqual(limits);
  });
});
