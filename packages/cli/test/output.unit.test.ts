import { describe, expect, it } from "vitest";
import { lastDays } from "../src/commands/stats.ts";
import { sparkline, table } from "../src/output.ts";

describe("sparkline", () => {
  it("draws each count relative to the largest, a zero as a blank", () => {
    expect(sparkline([0, 1, 2, 4, 8])).toBe(" ▁▂▄█");
    expect(sparkline([3, 3])).toBe("██");
    expect(sparkline([0, 0, 0])).toBe("   ");
    expect(sparkline([])).toBe("");
  });
});

describe("lastDays", () => {
  it("lists the 30 UTC dates up to the clock's, oldest first", () => {
    const days = lastDays(Date.parse("2030-03-01T23:30:00Z"));
    expect(days).toHaveLength(30);
    expect(days[0]).toBe("2030-01-31");
    expect(days[29]).toBe("2030-03-01");
  });
});

describe("table", () => {
  it("pads every column but the last to its widest cell", () => {
    expect(
      table([
        ["CODE", "URL"],
        ["a", "https://example.com"],
      ]),
    ).toBe("CODE  URL\na     https://example.com");
  });
});
