import { validate, version } from "uuid";
import { describe, expect, it } from "vitest";
import { clickId } from "./click-id.ts";

describe("clickId", () => {
  it("is a valid RFC 9562 version 7 UUID carrying the millisecond it was made in", () => {
    const now = Date.now() + 60_000;
    const id = clickId(now);
    expect(validate(id)).toBe(true);
    expect(version(id)).toBe(7);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(now);
  });

  it("strictly increases within a millisecond, across milliseconds and when the clock steps back", () => {
    const start = Date.now() + 120_000;
    const ids: string[] = [];
    for (let i = 0; i < 10_000; i++) ids.push(clickId(start + Math.floor(i / 3_000)));
    ids.push(clickId(start - 5_000)); // a clock stepped back
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids) expect(version(id)).toBe(7);
  });

  it("draws the variant's two free bits and the 60 bits after it at random", () => {
    const n = 40_000;
    const variants = new Map<string, number>();
    const digits = new Map<string, number>();
    const base = Date.now() + 180_000;
    for (let i = 0; i < n; i++) {
      const id = clickId(base + Math.floor(i / 1_000));
      variants.set(id[19]!, (variants.get(id[19]!) ?? 0) + 1);
      for (const d of id.slice(20).replace("-", "")) digits.set(d, (digits.get(d) ?? 0) + 1);
    }
    expect([...variants.keys()].sort()).toEqual(["8", "9", "a", "b"]);
    for (const count of variants.values()) expect(Math.abs(count / n - 1 / 4)).toBeLessThan(0.02);
    expect(digits.size).toBe(16);
    for (const count of digits.values()) expect(Math.abs(count / (n * 15) - 1 / 16)).toBeLessThan(0.005);
  });
});
