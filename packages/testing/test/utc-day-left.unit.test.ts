// The day a test's clicks share, from the clock it is given: the rest of today when enough is left,
// else the next day after a wait, across month, leap-day and year ends alike.
import { describe, expect, it } from "vitest";
import { utcDayLeft } from "../src/wait.ts";

const at = (iso: string) => Date.parse(iso);

describe("utcDayLeft", () => {
  it("keeps today while the day has the time asked for", () => {
    expect(utcDayLeft(60_000, at("2027-03-15T12:00:00.000Z"))).toEqual({ day: "2027-03-15", waitMs: 0 });
    expect(utcDayLeft(60_000, at("2027-03-15T00:00:00.000Z"))).toEqual({ day: "2027-03-15", waitMs: 0 });
    expect(utcDayLeft(60_000, at("2027-03-15T23:59:00.000Z"))).toEqual({ day: "2027-03-15", waitMs: 0 });
  });

  it("waits for the next day, whatever its month and year, when less is left", () => {
    expect(utcDayLeft(60_000, at("2026-12-31T23:59:30.000Z"))).toEqual({ day: "2027-01-01", waitMs: 30_250 });
    expect(utcDayLeft(60_000, at("2028-02-28T23:59:59.999Z"))).toEqual({ day: "2028-02-29", waitMs: 251 });
    expect(utcDayLeft(60_000, at("2028-02-29T23:59:00.001Z"))).toEqual({ day: "2028-03-01", waitMs: 60_249 });
    expect(utcDayLeft(60_000, at("2026-11-30T23:59:45.000Z"))).toEqual({ day: "2026-12-01", waitMs: 15_250 });
  });
});
