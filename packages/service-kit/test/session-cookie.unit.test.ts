import { describe, expect, it } from "vitest";
import { clearedSessionCookie, sessionCookie, sessionTokenFrom } from "../src/index.ts";

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
