import { describe, expect, it } from "vitest";
import { periodOf, splitPeriod } from "../src/queries/period.ts";

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

  it("reads whole days from rollups only", () => {
    expect(splitPeriod(p("2026-11-01T00:00:00.000Z", "2026-11-03T23:59:59.999Z"))).toEqual({
      days: { from: "2026-11-01", to: "2026-11-03" },
      edges: [],
    });
  });

  it("reads partial days at either end from raw clicks", () => {
    expect(splitPeriod(p("2026-11-01T06:00:00.000Z", "2026-11-03T12:00:00.000Z"))).toEqual({
      days: { from: "2026-11-02", to: "2026-11-02" },
      edges: [
        p("2026-11-01T06:00:00.000Z", "2026-11-01T23:59:59.999Z"),
        p("2026-11-03T00:00:00.000Z", "2026-11-03T12:00:00.000Z"),
      ],
    });
  });

  it("reads a period inside one day, or spanning one midnight, from raw clicks", () => {
    const inside = p("2026-11-01T06:00:00.000Z", "2026-11-01T07:00:00.000Z");
    expect(splitPeriod(inside)).toEqual({ days: null, edges: [inside] });
    const across = p("2026-11-01T18:00:00.000Z", "2026-11-02T06:00:00.000Z");
    expect(splitPeriod(across)).toEqual({ days: null, edges: [across] });
  });
});
