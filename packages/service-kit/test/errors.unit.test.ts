import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ApiError,
  apiError,
  conflict,
  methodNotAllowedError,
  rateLimitExceeded,
  toLegacyError,
  toV1Error,
  validation,
} from "../src/index.ts";

describe("error envelopes", () => {
  it("turns an ApiError into the v1 and legacy shapes with its status", () => {
    expect(toV1Error(conflict("Custom alias already taken"))).toEqual({
      status: 409,
      headers: {},
      body: { success: false, error: { code: "CONFLICT", message: "Custom alias already taken" } },
    });
    expect(toLegacyError(conflict("Custom alias already taken"))).toEqual({
      status: 409,
      headers: {},
      body: { error: 1, message: "Custom alias already taken" },
    });
  });

  it("gives a zod error VALIDATION_ERROR with the field tree as details and the fields in the message", () => {
    const result = z
      .object({ url: z.url(), alias: z.string().min(3) })
      .safeParse({ url: "nope", alias: "a" });
    const { status, body } = toV1Error(result.error);
    expect(status).toBe(400);
    expect(body.error.code).toBe("VALIDATION_ERROR");
    // zod's formatted tree, the shape SnipURL's clients read (decision 0010).
    expect(body.error.details).toEqual({
      _errors: [],
      url: { _errors: [expect.any(String)] },
      alias: { _errors: [expect.any(String)] },
    });
    expect(toLegacyError(validation(result.error!)).body.message).toMatch(
      /^Invalid request: url: .+; alias: .+$/,
    );
  });

  it("hides the message of unknown errors behind INTERNAL_ERROR", () => {
    const { status, body } = toV1Error(new Error("db password is hunter2"));
    expect(status).toBe(500);
    expect(body).toEqual({
      success: false,
      error: { code: "INTERNAL_ERROR", message: "Internal server error" },
    });
    expect(toLegacyError("a thrown string").body).toEqual({ error: 1, message: "Internal server error" });
  });

  it("carries headers for 405 and 429", () => {
    expect(toV1Error(methodNotAllowedError(["get", "post"])).headers).toEqual({ Allow: "GET, POST" });
    const limited = toV1Error(rateLimitExceeded({ limit: 60, window: "1m", retry_after: 12 }));
    expect(limited.status).toBe(429);
    expect(limited.headers).toMatchObject({ "Retry-After": "12", "X-RateLimit-Remaining": "0" });
    expect(limited.body.error.details).toEqual({ limit: 60, window: "1m", retry_after: 12 });
  });

  it("keeps the status, code, message and details it was built with", () => {
    const err = new ApiError(429, "RATE_LIMIT_EXCEEDED", "slow down", {
      limit: 30,
      window: "1m",
      retry_after: 5,
    });
    expect(toV1Error(err)).toEqual({
      status: 429,
      headers: {},
      body: {
        success: false,
        error: {
          code: "RATE_LIMIT_EXCEEDED",
          message: "slow down",
          details: { limit: 30, window: "1m", retry_after: 5 },
        },
      },
    });
    expect(toLegacyError(err)).toMatchObject({ status: 429, body: { error: 1, message: "slow down" } });
  });

  it("derives the status from the code in apiError()", () => {
    expect(apiError("KEY_REVOKED", "revoked").status).toBe(401);
    expect(apiError("SERVICE_UNAVAILABLE", "down").status).toBe(503);
  });
});
