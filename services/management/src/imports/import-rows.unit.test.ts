import { describe, expect, it } from "vitest";
import { checkImportRow } from "./import-rows.ts";

const row = (expires_at: string) => checkImportRow({ row: 2, url: "https://example.com/", expires_at });

describe("an import row's expires_at", () => {
  it("reads a date-time without a zone as UTC, as SQL dumps and spreadsheets write it", () => {
    const cases: [string, string][] = [
      ["2031-01-01 12:00:00", "2031-01-01T12:00:00.000Z"],
      ["2031-01-01T12:00", "2031-01-01T12:00:00.000Z"],
      ["2031-01-01 12:00:00.250", "2031-01-01T12:00:00.250Z"],
    ];
    for (const [given, instant] of cases) {
      const r = row(given);
      expect(r.ok && r.value.expiresAt?.toISOString(), given).toBe(instant);
    }
  });

  it("takes what the API takes: a date at midnight UTC, a date-time with an offset", () => {
    const date = row("2031-01-01");
    expect(date.ok && date.value.expiresAt?.toISOString()).toBe("2031-01-01T00:00:00.000Z");
    const zoned = row("2031-01-01T12:00:00+02:00");
    expect(zoned.ok && zoned.value.expiresAt?.toISOString()).toBe("2031-01-01T10:00:00.000Z");
  });

  it("refuses what is no date, with the field named", () => {
    for (const given of ["next tuesday", "2031-13-01 12:00:00", "01/02/2031"]) {
      const r = row(given);
      expect(r.ok, given).toBe(false);
      if (!r.ok) expect(r.error).toMatch(/^expires_at/);
    }
  });
});

describe("an import row's code", () => {
  const withCode = (alias: string, codes?: Parameters<typeof checkImportRow>[1]) =>
    checkImportRow({ row: 3, url: "https://example.com/", alias }, codes);

  it("is kept as the peer made it: 1-2 characters, `_`, edge hyphens, up to 100 characters, case kept", () => {
    for (const code of ["1", "a", "X", "10", "release_notes", "-beta", "beta-", "Q".repeat(100)]) {
      const r = withCode(code);
      expect(r.ok && r.value.alias, code).toBe(code);
    }
  });

  it("is refused, with the field named, when it is no code", () => {
    for (const code of ["-", "__", "a.b", "a/b", "pаypal", "a".repeat(101)]) {
      const r = withCode(code);
      expect(r.ok, code).toBe(false);
      if (!r.ok) expect(r.error).toMatch(/^alias: Only letters, digits, _ and -/);
    }
  });

  it("that is one of Kurz's own paths is refused on the public host, saying what to do", () => {
    for (const code of ["docs", "API", "c", "Dashboard", "login"]) {
      const r = withCode(code);
      expect(r.ok, code).toBe(false);
      if (!r.ok) {
        expect(r.error).toContain(`"${code}" is one of Kurz's own paths`);
        expect(r.error).toContain("domain=HOST");
        expect(r.error).toContain(`rename_reserved=PREFIX`);
      }
    }
  });

  it("that is one of Kurz's own paths is kept on a branded domain", () => {
    const r = withCode("docs", { branded: true, renameReserved: "old" });
    expect(r.ok && r.value).toMatchObject({ alias: "docs" });
    expect(r.ok && r.value.renamedFrom).toBeUndefined();
  });

  it("that is one of Kurz's own paths is kept as PREFIX-code with rename_reserved, and only that one", () => {
    const renamed = withCode("Docs", { branded: false, renameReserved: "old" });
    expect(renamed.ok && renamed.value).toMatchObject({ alias: "old-Docs", renamedFrom: "Docs" });
    const plain = withCode("docs2", { branded: false, renameReserved: "old" });
    expect(plain.ok && plain.value).toMatchObject({ alias: "docs2" });
    expect(plain.ok && plain.value.renamedFrom).toBeUndefined();
  });
});

describe("a refused row's reason", () => {
  const reason = (raw: Parameters<typeof checkImportRow>[0]) => {
    const r = checkImportRow(raw);
    return r.ok ? null : r.error;
  };

  it("says what is wrong with each field and how to fix it in the file", () => {
    const cases: [Parameters<typeof checkImportRow>[0], RegExp][] = [
      [{ row: 1 }, /^url: missing\. Give the row its destination .* or remove the row$/],
      [
        { row: 1, url: "not a url" },
        /^url: .+\. To import it, give an absolute http:\/\/ or https:\/\/ address/,
      ],
      [{ row: 1, url: "https://example.com/", alias: "a.b" }, /^alias: .+\. To import it, change the alias/],
      [
        { row: 1, url: "https://example.com/", password: "x".repeat(129) },
        /^password: A link password has at most 128 characters\. To import it, correct the password/,
      ],
      [
        { row: 1, url: "https://example.com/", expires_at: "someday" },
        /^expires_at: Expected an ISO 8601 date.*\. To import it, write the date as 2031-01-01/,
      ],
    ];
    for (const [raw, expected] of cases) expect(reason(raw), JSON.stringify(raw)).toMatch(expected);
  });

  it("names every refused field, one clause each", () => {
    const both = reason({ row: 1, url: "nope", alias: "a.b", expires_at: "someday" }) ?? "";
    expect(both.split("; ").map((part) => part.split(":")[0])).toEqual(["url", "alias", "expires_at"]);
  });
});

describe("a row protected at its source", () => {
  it("needs its owner when the file says a password is set but not which", () => {
    const r = checkImportRow(
      { row: 3, url: "https://example.com/", passwordWithheld: true },
      { format: "kutt" },
    );
    expect(r.ok && r.value.attention).toBe(
      "protected in Kutt; Kutt does not export passwords: set a password and activate",
    );
  });

  it("needs nothing when the file holds the password itself", () => {
    const r = checkImportRow(
      { row: 3, url: "https://example.com/", password: "hunter2hunter2" },
      { format: "csv" },
    );
    expect(r.ok && r.value.attention).toBeNull();
  });
});
