import { describe, expect, it } from "vitest";
import {
  ACCOUNT_DELETION_ROUTES,
  API_ROUTES,
  AUDIT_ROUTES,
  CAMPAIGN_ROUTES,
  EXPORT_ROUTES,
  HEALTH_ROUTES,
  IMPORT_ROUTES,
  LEGACY_ROUTES,
  OVERLAY_ROUTES,
  parseUpdateLinkBody,
  ROUTE_DEFS,
  ROUTES,
  SMART_LINK_ROUTES,
  SSO_ROUTES,
  TWO_FACTOR_ROUTES,
  V1_ROUTES,
  WEBHOOK_ROUTES,
  WORKSPACE_ROUTES,
} from "../src/index.ts";

describe("ROUTES", () => {
  it("declares each method and path once", () => {
    const names = ROUTE_DEFS.map((r) => `${r.method} ${r.path.toLowerCase()}`);
    expect(new Set(names).size).toBe(names.length);
    const groups = [
      V1_ROUTES,
      IMPORT_ROUTES,
      EXPORT_ROUTES,
      WEBHOOK_ROUTES,
      WORKSPACE_ROUTES,
      SSO_ROUTES,
      AUDIT_ROUTES,
      LEGACY_ROUTES,
      OVERLAY_ROUTES,
      CAMPAIGN_ROUTES,
      ACCOUNT_DELETION_ROUTES,
      TWO_FACTOR_ROUTES,
      SMART_LINK_ROUTES,
      HEALTH_ROUTES,
    ];
    expect(Object.keys(ROUTES)).toHaveLength(groups.reduce((n, group) => n + Object.keys(group).length, 0));
  });

  it("gives every route a JSON response schema or the media types it produces (or both: JSON or CSV)", () => {
    for (const def of ROUTE_DEFS) {
      expect(Boolean(def.response) || Boolean(def.produces?.length), `${def.method} ${def.path}`).toBe(true);
    }
    const both = ROUTE_DEFS.filter((def) => def.response && def.produces);
    expect(both.map((def) => `${def.method} ${def.path}`)).toEqual(["GET /api/v1/audit-log"]);
  });

  it("declares a parameter schema member for every :param of the path, and no other", () => {
    for (const def of ROUTE_DEFS) {
      const inPath = [...def.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]).sort();
      expect(Object.keys(def.params?.shape ?? {}).sort(), def.path).toEqual(inPath);
    }
  });

  it("keeps v1 under /api/v1 and legacy under /api, legacy always keyed and 200", () => {
    for (const def of [...Object.values(V1_ROUTES), ...Object.values(WEBHOOK_ROUTES)])
      expect(def.path.startsWith("/api/v1/")).toBe(true);
    for (const def of Object.values(LEGACY_ROUTES)) {
      expect(def.path.startsWith("/api/") && !def.path.startsWith("/api/v1/")).toBe(true);
      expect(def).toMatchObject({ tag: "legacy", auth: "key", status: 200 });
      expect(def.response).toBeDefined();
    }
  });

  it("leaves only sign-up, sign-in (its second factor and passkeys), the e-mailed links, public analytics, uploaded images, accepting an invitation and single sign-on without a key or session", () => {
    expect(ROUTE_DEFS.filter((d) => d.auth === "public")).toEqual([
      ROUTES.register,
      ROUTES.login,
      ROUTES.requestPasswordReset,
      ROUTES.resetPassword,
      ROUTES.confirmEmailChange,
      ROUTES.getPublicAnalytics,
      ROUTES.getImage,
      ROUTES.completeTwoFactor,
      ROUTES.passkeySignInOptions,
      ROUTES.passkeySignIn,
      ROUTES.acceptInvitation,
      ROUTES.listSsoProviders,
      ROUTES.startSso,
      ROUTES.finishSso,
    ]);
  });

  it("lists every record in API_ROUTES, in order", () => {
    expect(API_ROUTES).toEqual(ROUTE_DEFS.map(({ method, path, tag }) => ({ method, path, tag })));
  });

  it("refuses immutable PATCH members before the schema, exactly when parseUpdateLinkBody does", () => {
    const reject = ROUTES.updateLink.rejectBody;
    expect(reject({ original_url: "https://e.com", title: "x" })).toBe(
      "original_url cannot be changed; create a new link instead",
    );
    expect(reject({ short_code: "a", original_url: null })).toBe(
      "original_url and short_code cannot be changed; create a new link instead",
    );
    for (const body of [{}, { title: "x" }, { url: "https://e.com" }, null, [], "x"]) {
      expect(reject(body)).toBeUndefined();
      expect(parseUpdateLinkBody(body)).not.toMatchObject({ code: "BAD_REQUEST" });
    }
  });
});
