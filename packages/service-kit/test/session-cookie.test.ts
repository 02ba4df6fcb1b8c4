import { describe, expect, it } from "vitest";
import { clearedSessionCookie, sessionCookie, sessionTokenFrom } from "../src/index.ts";

describe("session cookie", () => {
  it("is HttpOnly, SameSite=Lax, for the whole site, and Secure exactly when the public origin is https", () => {
    expect(sessionCookie("tok", 90.7, { publicBaseUrl: "http://127.0.0.1:8080" })).toBe(
      "kurz_session=tok; Max-Age=90; Path=/; HttpOnly; SameSite=Lax",
    );
    expect(sessionCookie("tok", 60, { publicBaseUrl: "HTTPS://kurz.example" })).toBe(
      "kurz_session=tok; Max-Age=60; Path=/; HttpOnly; SameSite=Lax; Secure",
    );
    expect(clearedSessionCookie({ publicBaseUrl: "https://kurz.example" })).toBe(
      "kurz_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax; Secure",
    );
  });

  it("reads the token from a Cookie header, and none from an ambiguous or empty one", () => {
    expect(sessionTokenFrom(undefined)).toBeNull();
    expect(sessionTokenFrom("")).toBeNull();
    expect(sessionTokenFrom("theme=dark")).toBeNull();
    expect(sessionTokenFrom("theme=dark; kurz_session=abc ; x=y")).toBe("abc");
    expect(sessionTokenFrom("kurz_session=")).toBeNull();
    expect(sessionTokenFrom("kurz_session=a; kurz_session=b")).toBeNull();
    expect(sessionTokenFrom("not_kurz_session=a")).toBeNull();
    expect(sessionTokenFrom("kurz_session_x=a")).toBeNull();
  });
});
