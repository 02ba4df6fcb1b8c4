import { describe, expect, it } from "vitest";
import { QrParams, QrQuery } from "../src/index.ts";

const ok = (query: Record<string, unknown>) => QrQuery.safeParse(query).success;

describe("QR query", () => {
  it("applies the documented defaults", () => {
    expect(QrQuery.parse({})).toEqual({
      format: "png",
      size: 400,
      color: "#1A1410",
      bg: "#FFFFFF",
      ec: "M",
      margin: 2,
    });
  });

  it("parses a full query and normalises colours to #RRGGBB", () => {
    expect(
      QrQuery.parse({ format: "svg", size: "1000", color: "ff0000", bg: "#00ff7f", ec: "H", margin: "0" }),
    ).toEqual({
      format: "svg",
      size: 1000,
      color: "#FF0000",
      bg: "#00FF7F",
      ec: "H",
      margin: 0,
    });
    expect(QrQuery.parse({ color: "#abcdef", bg: "transparent" })).toMatchObject({
      color: "#ABCDEF",
      bg: "transparent",
    });
  });

  it("accepts size 100..1000 and nothing outside", () => {
    expect(ok({ size: "100" })).toBe(true);
    expect(ok({ size: "1000" })).toBe(true);
    for (const size of ["99", "1001", "0", "-400"]) expect(ok({ size }), size).toBe(false);
  });

  it("accepts margin 0..4 and nothing outside", () => {
    expect(ok({ margin: "4" })).toBe(true);
    for (const margin of ["5", "-1"]) expect(ok({ margin }), margin).toBe(false);
  });

  it("rejects integers with trailing junk, fractions or exponents", () => {
    for (const size of ["12abc", "1.5", "400.0", "4e2", " 400", "", "0x190"])
      expect(ok({ size }), size).toBe(false);
    for (const margin of ["1.5", "2px"]) expect(ok({ margin }), margin).toBe(false);
  });

  it("rejects colours that are not exactly 6 hex digits", () => {
    for (const color of [
      "fff",
      "#fff",
      "1A141",
      "1A14100",
      "gggggg",
      "##1A1410",
      "red",
      "transparent",
      "1A1410FF",
    ]) {
      expect(ok({ color }), color).toBe(false);
    }
    for (const bg of ["Transparent", "none", "#12345"]) expect(ok({ bg }), bg).toBe(false);
  });

  it("accepts only the listed format and error-correction values", () => {
    for (const format of ["PNG", "jpg", "svg+xml"]) expect(ok({ format }), format).toBe(false);
    for (const ec of ["m", "X", "MM"]) expect(ok({ ec }), ec).toBe(false);
  });

  it("takes a short code or alias in the path", () => {
    expect(QrParams.safeParse({ short_code: "abc123" }).success).toBe(true);
    expect(QrParams.safeParse({ short_code: "../etc" }).success).toBe(false);
  });
});
