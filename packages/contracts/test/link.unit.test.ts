import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  BulkCreateBatch,
  BulkCreateBody,
  BulkCreateResult,
  BulkDeleteBody,
  CreateLinkBody,
  CustomAlias,
  ImportCode,
  isCodeShaped,
  isReservedAlias,
  Link,
  LinkWithSharedFields,
  ListLinksQuery,
  parseUpdateLinkBody,
  RESERVED_ALIASES,
  ShortCode,
  UpdateLinkBody,
} from "../src/index.ts";
import { LINK_ID, link } from "./samples.ts";

const withAlias = (custom_alias: string) =>
  CreateLinkBody.safeParse({ url: "https://example.com", custom_alias });

describe("Link responses", () => {
  it("accepts the documented link object and requires analytics_shared_fields only on the single read", () => {
    expect(Link.parse(link)).toEqual(link);
    expect(LinkWithSharedFields.safeParse(link).success).toBe(false);
    expect(
      LinkWithSharedFields.parse({ ...link, analytics_shared_fields: null }).analytics_shared_fields,
    ).toBeNull();
    expect(
      LinkWithSharedFields.parse({ ...link, analytics_shared_fields: ["overview", "devices"] })
        .analytics_shared_fields,
    ).toEqual(["overview", "devices"]);
  });

  it("rejects timestamps that are not UTC with milliseconds", () => {
    expect(Link.safeParse({ ...link, created_at: "2026-01-31T12:00:00Z" }).success).toBe(false);
    expect(Link.safeParse({ ...link, created_at: "2026-01-31T13:00:00.000+01:00" }).success).toBe(false);
  });
});

describe("CreateLinkBody", () => {
  it("accepts a full documented body", () => {
    const body = {
      url: "https://example.com/a?b=c",
      custom_alias: "Spring-Sale-2026",
      title: "Sale",
      password: "hunter22",
      expires_at: "2026-12-31T23:59:59+01:00",
    };
    expect(CreateLinkBody.parse(body)).toEqual({ ...body, expires_at: "2026-12-31T22:59:59.000Z" });
  });

  it("accepts http and https only", () => {
    expect(CreateLinkBody.safeParse({ url: "http://example.com" }).success).toBe(true);
    expect(CreateLinkBody.safeParse({ url: "http://127.0.0.1:8080/x" }).success).toBe(true);
    for (const url of [
      "ftp://example.com/f",
      "javascript:alert(1)",
      "mailto:a@example.com",
      "example.com",
      "",
      "https://",
    ]) {
      expect(CreateLinkBody.safeParse({ url }).success, url).toBe(false);
    }
  });

  it("rejects a missing url and overlong ones", () => {
    expect(CreateLinkBody.safeParse({}).success).toBe(false);
    expect(CreateLinkBody.safeParse({ url: `https://example.com/${"a".repeat(2048)}` }).success).toBe(false);
  });

  it("applies the alias length bounds 3..50", () => {
    expect(withAlias("ab").success).toBe(false);
    expect(withAlias("abc").success).toBe(true);
    expect(withAlias("a".repeat(50)).success).toBe(true);
    expect(withAlias("a".repeat(51)).success).toBe(false);
  });

  it("allows letters, digits and inner hyphens only", () => {
    expect(withAlias("a-b-9").success).toBe(true);
    for (const alias of ["-abc", "abc-", "-", "ab_c", "ab c", "abç", "ab.c", "ab/c", "ab%20"]) {
      expect(withAlias(alias).success, alias).toBe(false);
    }
  });

  it("rejects reserved aliases in any case", () => {
    for (const alias of ["api", "API", "Dashboard", "ADMIN", "docs", "Health", "login", "Stats", "assets"]) {
      const result = withAlias(alias);
      expect(result.success, alias).toBe(false);
      expect(result.error?.issues[0]?.message).toBe("This alias is reserved");
    }
  });

  it("reads expires_at as a date (midnight UTC) or a zoned date-time, and answers it in UTC with milliseconds", () => {
    const expiry = (expires_at: unknown) => CreateLinkBody.safeParse({ url: "https://e.com", expires_at });
    const cases: [string, string][] = [
      ["2030-01-01", "2030-01-01T00:00:00.000Z"],
      ["2024-02-29", "2024-02-29T00:00:00.000Z"],
      ["2030-01-01T00:00:00Z", "2030-01-01T00:00:00.000Z"],
      ["2030-01-01T12:00:00+02:00", "2030-01-01T10:00:00.000Z"],
      ["2030-01-01T00:30:00-05:30", "2030-01-01T06:00:00.000Z"],
      ["2029-12-31T23:59:59.123456+01:00", "2029-12-31T22:59:59.123Z"],
    ];
    for (const [sent, stored] of cases) expect(expiry(sent).data?.expires_at, sent).toBe(stored);
    // The same schema on update (null removes the expiry), on each bulk item and on API keys.
    const update = parseUpdateLinkBody({ expires_at: "2030-01-01" });
    expect(update.ok && update.data.expires_at).toBe("2030-01-01T00:00:00.000Z");
    expect(parseUpdateLinkBody({ expires_at: null }).ok).toBe(true);
    const bulk = BulkCreateBody.parse({ links: [{ url: "https://e.com", expires_at: "2030-01-01" }] });
    expect(bulk.links[0]?.expires_at).toBe("2030-01-01T00:00:00.000Z");
  });

  it("refuses an expiry without a zone, an impossible day and garbage, saying what it takes", () => {
    const message =
      "Expected an ISO 8601 date (2030-01-01, midnight UTC) or date-time with Z or an offset (2030-01-01T12:00:00+02:00)";
    for (const sent of [
      "2030-01-01T00:00:00", // a local time: its instant would depend on the server's zone
      "2030-02-30",
      "2031-02-29",
      "2030-13-01",
      "2030-1-1",
      "01/01/2030",
      "tomorrow",
      "2030-01-01 00:00:00Z",
      "2030-01-01T12:00Z",
      "",
      " 2030-01-01",
      "Invalid datetime",
    ]) {
      const parsed = CreateLinkBody.safeParse({ url: "https://e.com", expires_at: sent });
      expect(parsed.error?.issues, sent).toMatchObject([{ path: ["expires_at"], message }]);
    }
    const update = parseUpdateLinkBody({ expires_at: "soon" });
    expect(update.ok === false && update.code === "VALIDATION_ERROR" && update.error.issues).toMatchObject([
      { path: ["expires_at"], message },
    ]);
    // Past the four-digit years a Timestamp shows.
    expect(
      CreateLinkBody.safeParse({ url: "https://e.com", expires_at: "9999-12-31T23:00:00-14:00" }).error
        ?.issues,
    ).toMatchObject([{ path: ["expires_at"], message: "Must be before the year 10000" }]);
    expect(CreateLinkBody.safeParse({ url: "https://e.com", expires_at: 1_900_000_000 }).success).toBe(false);
  });

  it("rejects an empty title and password", () => {
    expect(CreateLinkBody.safeParse({ url: "https://e.com", title: "  " }).success).toBe(false);
    expect(CreateLinkBody.safeParse({ url: "https://e.com", password: "" }).success).toBe(false);
  });

  it("takes any non-empty link password up to 128 characters, on create, update and each bulk item", () => {
    // SnipURL's documented bulk example sends "secret"; one character is a password too.
    for (const password of ["secret", "x", " ", "x".repeat(128)]) {
      expect(CreateLinkBody.safeParse({ url: "https://e.com", password }).success, password).toBe(true);
      expect(parseUpdateLinkBody({ password }).ok, password).toBe(true);
    }
    const tooLong = "x".repeat(129);
    const message = "A link password has at most 128 characters";
    const create = CreateLinkBody.safeParse({ url: "https://e.com", password: tooLong });
    expect(create.error?.issues).toMatchObject([{ path: ["password"], message }]);
    const update = parseUpdateLinkBody({ password: tooLong });
    expect(update.ok === false && update.code === "VALIDATION_ERROR" && update.error.issues).toMatchObject([
      { path: ["password"], message },
    ]);
    // null removes the password; it is not a password of length 0, which is refused.
    expect(parseUpdateLinkBody({ password: null }).ok).toBe(true);
    expect(parseUpdateLinkBody({ password: "" }).ok).toBe(false);
    const bulk = BulkCreateBody.safeParse({
      links: [
        { url: "https://e.com", password: "secret" },
        { url: "https://e.com", password: tooLong },
      ],
    });
    expect(bulk.error?.issues).toMatchObject([{ path: ["links", 1, "password"], message }]);
  });

  // Postgres text cannot hold NUL: refused here, before a write could fail with a 500.
  it("refuses NUL in stored text and control characters in the destination", () => {
    expect(CreateLinkBody.safeParse({ url: "https://e.com", title: "a\u0000b" }).success).toBe(false);
    expect(CreateLinkBody.safeParse({ url: "https://e.com/a\u0000b" }).success).toBe(false);
    // Tabs and newlines are dropped by URL parsing (WHATWG), so none reach a Location header.
    expect(CreateLinkBody.parse({ url: "https://e.com/a\nb" }).url).toBe("https://e.com/ab");
    expect(CreateLinkBody.safeParse({ url: "https://e.com/a\u0001b" }).success).toBe(false);
    expect(CreateLinkBody.safeParse({ url: "https://e.com/a\u007fb" }).success).toBe(false);
    expect(ListLinksQuery.safeParse({ search: "\u0000" }).success).toBe(false);
    expect(CreateLinkBody.safeParse({ url: "https://e.com/ä?q=ü", title: "tab\tok" }).success).toBe(true);
  });
});

describe("reserved aliases", () => {
  it("covers the documented examples and the platform's top-level paths", () => {
    for (const word of [
      "api",
      "dashboard",
      "admin",
      "docs",
      "health",
      "ready",
      "login",
      "register",
      "r",
      "qr",
      "public",
    ]) {
      expect(RESERVED_ALIASES).toContain(word);
    }
  });

  it("compares case-insensitively", () => {
    expect(isReservedAlias("FAVICON.ICO")).toBe(true);
    expect(isReservedAlias("Robots.Txt")).toBe(true);
    expect(isReservedAlias("apis")).toBe(false);
  });
});

describe("PATCH /links/:id body", () => {
  it("accepts each documented member, including nulls that remove", () => {
    const body = {
      title: "New",
      is_active: false,
      password: null,
      expires_at: null,
      analytics_public: true,
      analytics_shared_fields: ["overview", "referrers"],
    };
    expect(parseUpdateLinkBody(body)).toEqual({ ok: true, data: body });
    expect(parseUpdateLinkBody({})).toEqual({ ok: true, data: {} });
  });

  it("answers BAD_REQUEST for original_url or short_code, even beside valid members", () => {
    expect(parseUpdateLinkBody({ original_url: "https://e.com" })).toEqual({
      ok: false,
      code: "BAD_REQUEST",
      fields: ["original_url"],
    });
    expect(parseUpdateLinkBody({ title: "x", short_code: "abc", original_url: null })).toMatchObject({
      code: "BAD_REQUEST",
      fields: ["original_url", "short_code"],
    });
  });

  it("answers VALIDATION_ERROR for unknown members and bad values", () => {
    expect(parseUpdateLinkBody({ url: "https://e.com" })).toMatchObject({
      ok: false,
      code: "VALIDATION_ERROR",
    });
    expect(parseUpdateLinkBody({ is_active: "true" })).toMatchObject({ ok: false, code: "VALIDATION_ERROR" });
    expect(parseUpdateLinkBody({ analytics_shared_fields: ["overview", "secrets"] })).toMatchObject({
      code: "VALIDATION_ERROR",
    });
    expect(parseUpdateLinkBody({ analytics_shared_fields: ["overview", "overview"] })).toMatchObject({
      code: "VALIDATION_ERROR",
    });
    expect(parseUpdateLinkBody([])).toMatchObject({ code: "VALIDATION_ERROR" });
    expect(parseUpdateLinkBody(null)).toMatchObject({ code: "VALIDATION_ERROR" });
  });

  it("is strict on its own, so the immutable check must come first", () => {
    expect(UpdateLinkBody.safeParse({ short_code: "abc" }).success).toBe(false);
  });
});

describe("GET /links query", () => {
  it("defaults page 1 and per_page 20", () => {
    expect(ListLinksQuery.parse({})).toEqual({ page: 1, per_page: 20 });
  });

  it("parses query-string integers and the is_active flag", () => {
    expect(
      ListLinksQuery.parse({ page: "3", per_page: "100", is_active: "false", search: " shop " }),
    ).toEqual({
      page: 3,
      per_page: 100,
      is_active: false,
      search: "shop",
    });
    expect(ListLinksQuery.parse({ is_active: "true" }).is_active).toBe(true);
    expect(ListLinksQuery.parse({ search: "" }).search).toBeUndefined();
  });

  it("keeps per_page within 1..100 and page at least 1", () => {
    for (const per_page of ["0", "101", "-1"]) {
      expect(ListLinksQuery.safeParse({ per_page }).success, per_page).toBe(false);
    }
    expect(ListLinksQuery.safeParse({ per_page: "1" }).success).toBe(true);
    expect(ListLinksQuery.safeParse({ page: "0" }).success).toBe(false);
  });

  it("rejects integers that are not plain decimal digits", () => {
    for (const page of ["", " 2", "2 ", "1.5", "1e2", "0x10", "12abc", "+3", "Infinity"]) {
      expect(ListLinksQuery.safeParse({ page }).success, JSON.stringify(page)).toBe(false);
    }
    expect(ListLinksQuery.safeParse({ page: ["1", "2"] }).success).toBe(false);
  });

  it("accepts is_active only as exactly true or false", () => {
    for (const is_active of ["TRUE", "True", "1", "0", "yes", ""]) {
      expect(ListLinksQuery.safeParse({ is_active }).success, is_active).toBe(false);
    }
  });
});

describe("bulk bodies", () => {
  const items = (n: number) => Array.from({ length: n }, (_, i) => ({ url: `https://example.com/${i}` }));
  const ids = (n: number) => Array.from({ length: n }, () => LINK_ID);

  it("takes 1..50 links", () => {
    expect(BulkCreateBody.safeParse({ links: [] }).success).toBe(false);
    expect(BulkCreateBody.safeParse({ links: items(50) }).success).toBe(true);
    expect(BulkCreateBody.safeParse({ links: items(51) }).success).toBe(false);
    expect(
      BulkCreateBody.safeParse({ links: [{ url: "https://e.com", custom_alias: "admin" }] }).success,
    ).toBe(false);
  });

  it("can check the batch apart from its items", () => {
    expect(BulkCreateBatch.safeParse({ links: [{ url: "not a url" }, 7] }).success).toBe(true);
    expect(BulkCreateBatch.safeParse({ links: items(51) }).success).toBe(false);
    expect(BulkCreateBatch.safeParse({ links: "x" }).success).toBe(false);
  });

  it("takes 1..50 UUIDs to delete", () => {
    expect(BulkDeleteBody.safeParse({ ids: ids(50) }).success).toBe(true);
    expect(BulkDeleteBody.safeParse({ ids: ids(51) }).success).toBe(false);
    expect(BulkDeleteBody.safeParse({ ids: [] }).success).toBe(false);
    expect(BulkDeleteBody.safeParse({ ids: ["42"] }).success).toBe(false);
  });

  it("accepts the documented result shape with success and failed items", () => {
    const result = {
      success: [
        {
          id: LINK_ID,
          short_code: "abc123",
          short_url: "https://kurz.example.com/abc123",
          original_url: "https://example.com",
          title: "Example",
          created_at: "2026-01-31T12:00:00.000Z",
        },
      ],
      failed: [{ index: 1, error: "Alias already taken" }],
    };
    expect(BulkCreateResult.parse(result)).toEqual(result);
    expect(BulkCreateResult.safeParse({ ...result, failed: [{ index: -1, error: "x" }] }).success).toBe(
      false,
    );
  });
});

describe("the code rule of imports (isCodeShaped, ImportCode)", () => {
  it("keeps what YOURLS and Kutt make: 1-2 characters, `_`, edge hyphens, up to 100 characters", () => {
    for (const code of [
      "1",
      "a",
      "X",
      "10",
      "zZ",
      "release_notes",
      "-beta",
      "beta-",
      "_x",
      "a".repeat(100),
    ]) {
      expect(isCodeShaped(code), code).toBe(true);
      expect(ImportCode.safeParse(code).success, code).toBe(true);
    }
  });

  it("refuses a code of no letter or digit, other characters, other scripts and 101 characters", () => {
    const refused = ["", "-", "_", "--", "_-_", "..", ".", "%2e", "a.b", "a/b", "a b", "a:b", "a%41"];
    refused.push("а", "pаypal", "ａ", "é", "ß", "a".repeat(101)); // Cyrillic а, full-width ａ
    for (const code of refused) {
      expect(isCodeShaped(code), code).toBe(false);
      expect(ImportCode.safeParse(code).success, code).toBe(false);
    }
  });

  it("is a superset of the API's alias rule, which stays as documented", () => {
    for (const alias of ["abc", "my-link", "A1b2", "x".repeat(50)]) {
      expect(CustomAlias.safeParse(alias).success, alias).toBe(true);
      expect(isCodeShaped(alias), alias).toBe(true);
    }
    for (const alias of ["ab", "a_b", "-beta", "x".repeat(51)]) {
      expect(CustomAlias.safeParse(alias).success, alias).toBe(false);
      expect(isCodeShaped(alias), alias).toBe(true);
    }
  });

  it("is the shape of a code in a path (QR, public statistics)", () => {
    expect(ShortCode.safeParse("a").success).toBe(true);
    expect(ShortCode.safeParse("release_notes").success).toBe(true);
    expect(ShortCode.safeParse("a".repeat(101)).success).toBe(false);
  });
});

describe("the reserved codes in docs/import-export.md", () => {
  it("lists every reserved word a code can be", () => {
    const doc = readFileSync(join(import.meta.dirname, "../../../docs/import-export.md"), "utf8");
    const section = doc.slice(doc.indexOf("#### Reserved codes"), doc.indexOf("### Idempotency"));
    const listed = new Set([...section.matchAll(/`([^`]+)`/g)].map((m) => m[1]));
    expect(RESERVED_ALIASES.filter((word) => isCodeShaped(word) && !listed.has(word))).toEqual([]);
  });
});
