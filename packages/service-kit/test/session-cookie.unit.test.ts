import { describe, expect, it } from "vitest";
import {
  clearedSessionCookie,
  clearedSsoFlowCookie,
  sessionCookie,
  sessionTokenFrom,
  ssoFlowCookie,
  ssoFlowFrom,
} from "../src/index.ts";

const HTTP = { publicBaseUrl: "http://127.0.0.1:8080" };
const HTTPS = { publicBaseUrl: "HTTPS://kurz.example" };

describe("session cookie", () => {
  it("is HttpOnly, SameSite=Lax, for the whole site; over https Secure and __Host- (no Domain)", () => {
    expect(sessionCookie("tok", 90.7, HTTP)).toBe(
      "kurz_session=tok; Max-Age=90; Path=/; HttpOnly; SameSite=Lax",
    );
    expect(sessionCookie("tok", 60, HTTPS)).toBe(
      "__Host-kurz_session=tok; Max-Age=60; Path=/; HttpOnly; SameSite=Lax; Secure",
    );
    expect(clearedSessionCookie(HTTPS)).toBe(
      "__Host-kurz_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax; Secure",
    );
    expect(clearedSessionCookie(HTTP)).toBe("kurz_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax");
  });

  it("reads the token from a Cookie header, and none from an ambiguous or empty one", () => {
    expect(sessionTokenFrom(undefined, HTTP)).toBeNull();
    expect(sessionTokenFrom("", HTTP)).toBeNull();
    expect(sessionTokenFrom("theme=dark", HTTP)).toBeNull();
    expect(sessionTokenFrom("theme=dark; kurz_session=abc ; x=y", HTTP)).toBe("abc");
    expect(sessionTokenFrom("kurz_session=", HTTP)).toBeNull();
    expect(sessionTokenFrom("kurz_session=a; kurz_session=b", HTTP)).toBeNull();
    expect(sessionTokenFrom("not_kurz_session=a", HTTP)).toBeNull();
    expect(sessionTokenFrom("kurz_session_x=a", HTTP)).toBeNull();
  });

  it("over https reads only the __Host- name: a plain one (which any sibling host can set) is no session", () => {
    expect(sessionTokenFrom("kurz_session=abc", HTTPS)).toBeNull();
    expect(sessionTokenFrom("kurz_session=planted; __Host-kurz_session=mine", HTTPS)).toBe("mine");
    expect(sessionTokenFrom("__Host-kurz_session=a; __Host-kurz_session=b", HTTPS)).toBeNull();
    expect(sessionTokenFrom("__host-kurz_session=a", HTTPS)).toBeNull();
  });
});

describe("single sign-on flow cookie", () => {
  const handle = "a".repeat(43);
  it("is HttpOnly, SameSite=Lax and short-lived; over https Secure and __Host-", () => {
    expect(ssoFlowCookie(handle, HTTP)).toBe(
      `kurz_sso=${handle}; Max-Age=600; Path=/; HttpOnly; SameSite=Lax`,
    );
    expect(ssoFlowCookie(handle, HTTPS)).toBe(
      `__Host-kurz_sso=${handle}; Max-Age=600; Path=/; HttpOnly; SameSite=Lax; Secure`,
    );
    expect(clearedSsoFlowCookie(HTTP)).toBe("kurz_sso=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax");
  });

  it("is read only when well-formed and named once", () => {
    expect(ssoFlowFrom(`x=1; kurz_sso=${handle}`, HTTP)).toBe(handle);
    expect(ssoFlowFrom(`kurz_sso=${handle}`, HTTPS)).toBeNull();
    expect(ssoFlowFrom(`__Host-kurz_sso=${handle}`, HTTPS)).toBe(handle);
    expect(ssoFlowFrom("kurz_sso=short", HTTP)).toBeNull();
    expect(ssoFlowFrom(`kurz_sso=${handle}; kurz_sso=${handle}`, HTTP)).toBeNull();
  });
});
