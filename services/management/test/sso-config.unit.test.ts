// The server's own single sign-on provider is all of OIDC_ISSUER, OIDC_CLIENT_ID and
// OIDC_CLIENT_SECRET or none: a part of it is refused at start, not discovered at the first sign-in.
import { describe, expect, it } from "vitest";
import { loadManagementConfig } from "../src/config.ts";
import { ssoSettingsFrom } from "../src/sso/sso-settings.ts";

const BASE = { INTERNAL_TOKEN: "x".repeat(40), PUBLIC_BASE_URL: "http://127.0.0.1:8080" };

describe("the server's single sign-on provider", () => {
  it("is off without OIDC_ISSUER", () => {
    expect(ssoSettingsFrom(loadManagementConfig({ ...BASE })).instance).toBeNull();
  });

  it("takes all three settings, and a button label", () => {
    const config = loadManagementConfig({
      ...BASE,
      OIDC_ISSUER: "https://login.example.com",
      OIDC_CLIENT_ID: "kurz",
      OIDC_CLIENT_SECRET: "s3cret",
      OIDC_NAME: "Example Login",
    });
    expect(ssoSettingsFrom(config).instance).toEqual({
      issuer: "https://login.example.com",
      clientId: "kurz",
      clientSecret: "s3cret",
      name: "Example Login",
    });
  });

  it("refuses a part of them at start", () => {
    expect(() => loadManagementConfig({ ...BASE, OIDC_ISSUER: "https://login.example.com" })).toThrow(
      /set all three or none/,
    );
    expect(() =>
      loadManagementConfig({
        ...BASE,
        OIDC_ISSUER: "ftp://login.example.com",
        OIDC_CLIENT_ID: "a",
        OIDC_CLIENT_SECRET: "b",
      }),
    ).toThrow(/OIDC_ISSUER/);
  });
});
