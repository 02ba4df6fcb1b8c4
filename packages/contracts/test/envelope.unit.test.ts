import { describe, expect, it } from "vitest";
import * as z from "zod";
import {
  ERROR_STATUS,
  ErrorCode,
  ErrorEnvelope,
  LegacyErrorEnvelope,
  LegacyMessageResponse,
  Link,
  legacyList,
  legacySuccess,
  PaginationMeta,
  RateLimitDetails,
  successEnvelope,
  validationDetails,
} from "../src/index.ts";
import { link } from "./samples.ts";

describe("v1 envelope", () => {
  it("wraps data, with meta only when given a meta schema", () => {
    const single = successEnvelope(Link);
    expect(single.parse({ success: true, data: link })).toEqual({ success: true, data: link });
    expect(single.safeParse({ success: false, data: link }).success).toBe(false);

    const list = successEnvelope(z.array(Link), PaginationMeta);
    const meta = { page: 1, per_page: 20, total: 1, total_pages: 1 };
    expect(list.parse({ success: true, data: [link], meta })).toEqual({ success: true, data: [link], meta });
    expect(list.safeParse({ success: true, data: [link] }).success).toBe(false);
  });

  // Each HTTP status with the error codes that answer with it.
  const STATUS_CODES: [status: number, codes: ErrorCode[]][] = [
    [400, ["VALIDATION_ERROR", "BAD_REQUEST"]],
    [401, ["UNAUTHORIZED", "KEY_EXPIRED", "KEY_REVOKED"]],
    [403, ["FORBIDDEN", "TWO_FACTOR_REQUIRED"]],
    [404, ["NOT_FOUND"]],
    [405, ["METHOD_NOT_ALLOWED"]],
    [409, ["CONFLICT"]],
    [413, ["PAYLOAD_TOO_LARGE"]],
    [415, ["UNSUPPORTED_MEDIA_TYPE"]],
    [429, ["RATE_LIMIT_EXCEEDED"]],
    [500, ["INTERNAL_ERROR"]],
    [503, ["SERVICE_UNAVAILABLE"]],
  ];

  it.each(STATUS_CODES)("answers %i for %j", (status, codes) => {
    for (const code of codes) expect(ERROR_STATUS[code], code).toBe(status);
  });

  it("gives every error code a status, each in one row above", () => {
    expect(STATUS_CODES.flatMap(([, codes]) => codes).sort()).toEqual([...ErrorCode.options].sort());
  });

  it("accepts the rate-limit error and rejects unknown codes", () => {
    const limited = {
      success: false,
      error: {
        code: "RATE_LIMIT_EXCEEDED",
        message: "Rate limit exceeded",
        details: { limit: 60, window: "1m", retry_after: 42 },
      },
    };
    expect(ErrorEnvelope.parse(limited)).toEqual(limited);
    expect(RateLimitDetails.parse(limited.error.details)).toEqual(limited.error.details);
    expect(RateLimitDetails.safeParse({ limit: 1000, window: "1d", retry_after: 1 }).success).toBe(false);
    expect(ErrorEnvelope.safeParse({ success: false, error: { code: "TEAPOT", message: "x" } }).success).toBe(
      false,
    );
  });

  it("turns a zod error into a details tree of the failing paths", () => {
    const error = z.object({ url: z.url() }).safeParse({ url: "nope" }).error!;
    const details = validationDetails(error);
    expect(details).toEqual({ _errors: [], url: { _errors: [expect.any(String)] } });
    expect(
      ErrorEnvelope.safeParse({
        success: false,
        error: { code: "VALIDATION_ERROR", message: "Invalid", details },
      }).success,
    ).toBe(true);
  });
});

describe("legacy envelope", () => {
  it("uses integer 0 on plain successes and 1 with a message on failures", () => {
    expect(LegacyMessageResponse.parse({ error: 0, message: "Done" })).toEqual({ error: 0, message: "Done" });
    expect(LegacyMessageResponse.safeParse({ error: "0", message: "Done" }).success).toBe(false);
    expect(legacySuccess({ id: z.int() }).parse({ error: 0, id: 3 })).toEqual({ error: 0, id: 3 });
    expect(LegacyErrorEnvelope.parse({ error: 1, message: "Invalid key" })).toEqual({
      error: 1,
      message: "Invalid key",
    });
    expect(LegacyErrorEnvelope.safeParse({ error: 1 }).success).toBe(false);
  });

  it('uses string "0" and the pagination members on lists', () => {
    const list = legacyList("things", z.object({ id: z.int() }));
    const body = {
      error: "0",
      data: {
        result: 3,
        perpage: 2,
        currentpage: 1,
        nextpage: 2,
        maxpage: 2,
        things: [{ id: 1 }, { id: 2 }],
      },
    };
    expect(list.parse(body)).toEqual(body);
    expect(list.safeParse({ ...body, error: 0 }).success).toBe(false);
    expect(
      list.parse({ ...body, data: { ...body.data, currentpage: 2, nextpage: null } }).data.nextpage,
    ).toBeNull();
  });
});
