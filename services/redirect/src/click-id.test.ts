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
});
