import { describe, expect, it } from "vitest";
import { levelRanges, periodOf, splitPeriod } from "../src/queries/period.ts";

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

describe("levelRanges", () => {
  const p = (from: string, to: string) => ({ from: new Date(from), to: new Date(to) });
  // The clock: click rows are kept from a fixed moment, so the answer does not depend on today.
  const clickRowsFrom = Date.parse("2026-10-15T00:00:00.000Z");

  it("names the whole days, the whole hours of partial days and the partial hours' clicks", () => {
    const r = levelRanges(
      p("2026-11-01T06:30:00.000Z", "2026-11-03T12:00:00.000Z"),
      "day",
      "x",
      clickRowsFrom,
    );
    expect(r.where.match(/level = '(\w+)'/g)).toEqual([
      "level = 'day'",
      "level = 'hour'",
      "level = 'hour'",
      "level = 'click'",
      "level = 'click'",
    ]);
    expect(r.params).toMatchObject({
      x_day0_from: new Date("2026-11-02T00:00:00.000Z"),
      x_day0_to: new Date("2026-11-03T00:00:00.000Z"),
      x_hour0_from: new Date("2026-11-01T07:00:00.000Z"),
      x_hour1_to: new Date("2026-11-03T12:00:00.000Z"),
      x_click0_from: new Date("2026-11-01T06:30:00.000Z"),
      x_click1_to: new Date("2026-11-03T12:00:00.001Z"),
    });
  });

  it("reads no whole days for an hourly series, and nothing for an empty period", () => {
    const r = levelRanges(
      p("2026-11-01T00:00:00.000Z", "2026-11-02T23:59:59.999Z"),
      "hour",
      "s",
      clickRowsFrom,
    );
    expect(r.where).not.toContain("'day'");
    expect(
      levelRanges(p("2026-11-02T00:00:00.000Z", "2026-11-01T00:00:00.000Z"), "day", "e", clickRowsFrom).where,
    ).toBe("0");
  });

  it("reads a partial hour older than the click rows from raw clicks", () => {
    const r = levelRanges(
      p("2026-11-01T06:30:00.000Z", "2026-11-03T12:00:00.000Z"),
      "day",
      "o",
      Date.parse("2026-11-02T00:00:00.000Z"),
    );
    expect(r.where.match(/level = 'click'/g)).toEqual(["level = 'click'"]);
    expect(r.clicksWhere).not.toBeNull();
    expect(r.params).toMatchObject({ o_old0_from: new Date("2026-11-01T06:30:00.000Z") });
  });
});
