import { describe, expect, it } from "vitest";
import { linkUnit, periodOf, splitPeriod } from "../src/queries/period.ts";

describe("periodOf", () => {
  it("applies only when both ends are given, and a bare end date includes that day", () => {
    expect(periodOf({ start: "2026-11-01" })).toBeNull();
    expect(periodOf({ end: "2026-11-01" })).toBeNull();
    expect(periodOf({ start: "2026-11-01", end: "2026-11-03" })).toEqual({
      from: new Date("2026-11-01T00:00:00.000Z"),
      to: new Date("2026-11-03T23:59:59.999Z"),
    });
    expect(periodOf({ start: "2026-11-01T10:00:00+02:00", end: "2026-11-01T12:00:00Z" })).toEqual({
      from: new Date("2026-11-01T08:00:00.000Z"),
      to: new Date("2026-11-01T12:00:00.000Z"),
    });
  });
});

describe("splitPeriod", () => {
  const p = (from: string, to: string) => ({ from: new Date(from), to: new Date(to) });
  // Spans are half-open [from, to) in epoch milliseconds.
  const span = (from: string, to: string) => ({ from: Date.parse(from), to: Date.parse(to) });

  it("reads whole days from the daily rollups only", () => {
    expect(splitPeriod(p("2026-11-01T00:00:00.000Z", "2026-11-03T23:59:59.999Z"))).toEqual({
      days: span("2026-11-01T00:00:00.000Z", "2026-11-04T00:00:00.000Z"),
      hours: [],
      raw: [],
    });
  });

  it("reads the whole hours of partial days from the hourly rollups, partial hours from raw clicks", () => {
    expect(splitPeriod(p("2026-11-01T06:30:00.000Z", "2026-11-03T12:00:00.000Z"))).toEqual({
      days: span("2026-11-02T00:00:00.000Z", "2026-11-03T00:00:00.000Z"),
      hours: [
        span("2026-11-01T07:00:00.000Z", "2026-11-02T00:00:00.000Z"),
        span("2026-11-03T00:00:00.000Z", "2026-11-03T12:00:00.000Z"),
      ],
      raw: [
        span("2026-11-01T06:30:00.000Z", "2026-11-01T07:00:00.000Z"),
        // The end is inclusive: its millisecond is read from raw clicks.
        span("2026-11-03T12:00:00.000Z", "2026-11-03T12:00:00.001Z"),
      ],
    });
  });

  it("reads a period inside one hour from raw clicks only, and one across midnight by hours", () => {
    expect(splitPeriod(p("2026-11-01T06:10:00.000Z", "2026-11-01T06:20:00.000Z"))).toEqual({
      days: null,
      hours: [],
      raw: [span("2026-11-01T06:10:00.000Z", "2026-11-01T06:20:00.001Z")],
    });
    expect(splitPeriod(p("2026-11-01T18:00:00.000Z", "2026-11-02T05:59:59.999Z"))).toEqual({
      days: null,
      hours: [span("2026-11-01T18:00:00.000Z", "2026-11-02T06:00:00.000Z")],
      raw: [],
    });
  });

  it("uses no whole days for an hourly series", () => {
    expect(splitPeriod(p("2026-11-01T00:00:00.000Z", "2026-11-02T23:59:59.999Z"), "hour")).toEqual({
      days: null,
      hours: [span("2026-11-01T00:00:00.000Z", "2026-11-03T00:00:00.000Z")],
      raw: [],
    });
  });
});

describe("linkUnit", () => {
  const p = (from: string, to: string) => ({ from: new Date(from), to: new Date(to) });

  it("reads a short period with times of day from hourly rows, anything else by whole days", () => {
    expect(linkUnit(null)).toBe("day");
    expect(linkUnit(p("2026-11-01T00:00:00.000Z", "2026-11-07T23:59:59.999Z"))).toBe("day");
    expect(linkUnit(p("2026-11-01T10:30:00.000Z", "2026-11-08T10:30:00.000Z"))).toBe("hour");
    expect(linkUnit(p("2026-11-01T10:30:00.000Z", "2026-11-09T10:29:59.999Z"))).toBe("hour");
    expect(linkUnit(p("2026-11-01T10:30:00.000Z", "2026-11-09T10:30:00.000Z"))).toBe("day");
    expect(linkUnit(p("2026-11-01T10:30:00.000Z", "2026-11-30T10:30:00.000Z"))).toBe("day");
    expect(linkUnit(p("2026-11-01T10:30:00.000Z", "2026-11-08T10:30:00.000Z"), 0)).toBe("day");
  });
});
