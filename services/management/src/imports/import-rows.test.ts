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
