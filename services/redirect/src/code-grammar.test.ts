import { isCodeShaped, isReservedAlias } from "@kurz/contracts";
import { isCampaignPagePath } from "@kurz/service-kit";
import { describe, expect, it } from "vitest";
import { isApiPath, isWebAppPath } from "./api-forwarder.ts";
import { isSlugShaped } from "./code-grammar.ts";

/** Every path of the public host that is not the redirect's: what the gateway answers there. */
const gatewayTakes = (path: string) => isApiPath(path) || isWebAppPath(path) || isCampaignPagePath(path);

describe("codes and Kurz's own paths on the public host", () => {
  it("a code whose path (or whose path as a prefix) goes to the gateway is a reserved word", () => {
    const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789_-";
    const candidates = ["api", "docs", "login", "signup", "dashboard", "stats", "assets", "openapi"];
    for (const a of alphabet) {
      candidates.push(a);
      for (const b of alphabet) {
        candidates.push(a + b);
        for (const c of alphabet) candidates.push(a + b + c);
      }
    }
    const shadowed = candidates.filter(
      (code) =>
        isCodeShaped(code) &&
        [`/${code}`, `/${code}/`, `/${code}/x`, `/${code}?x=1`].some(gatewayTakes) &&
        !isReservedAlias(code),
    );
    expect(shadowed).toEqual([]);
  });

  it("a code that only begins like one of those paths is the redirect's", () => {
    for (const code of ["login_old", "dashboard-2", "apix", "api_", "docs-", "c_", "stats", "assets", "r"]) {
      expect(isCodeShaped(code), code).toBe(true);
      expect(gatewayTakes(`/${code}`), code).toBe(false);
    }
  });

  it("rotator slugs keep the alias rule; link codes take the import rule", () => {
    expect(isSlugShaped("spring")).toBe(true);
    for (const slug of ["a", "ab", "a_b", "-ab", "x".repeat(51)])
      expect(isSlugShaped(slug), slug).toBe(false);
    for (const code of ["a", "a_b", "-ab", "x".repeat(100)]) expect(isCodeShaped(code), code).toBe(true);
  });
});
