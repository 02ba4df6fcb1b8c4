// KURZ_MEMORY_MB read and shared out (memory.ts): the default when unset, each service's bounds as
// shares of it, and a clear refusal below the minimum or for anything but a whole number.
import { describe, expect, it } from "vitest";
import {
  containerLimitMb,
  MEMORY_DEFAULT_MB,
  MEMORY_MIN_MB,
  memoryBoundsFor,
  memoryPlanFrom,
  NODE_BASE_MB,
  OUTSIDE_HEAP_MB,
} from "./memory.ts";

describe("memoryPlanFrom", () => {
  it("takes the default when unset or empty", () => {
    expect(memoryPlanFrom(undefined)).toMatchObject({ totalMb: MEMORY_DEFAULT_MB });
    expect(memoryPlanFrom(" ")).toMatchObject({ totalMb: MEMORY_DEFAULT_MB });
  });

  it("shares the budget out, and a larger budget raises every bound", () => {
    const at = (mb: number) =>
      memoryPlanFrom(String(mb)) as Exclude<ReturnType<typeof memoryPlanFrom>, { refused: string }>;
    const small = at(MEMORY_MIN_MB);
    const large = at(4096);
    expect(small.oldSpaceMb).toEqual({ management: 163, redirect: 122, analytics: 61, gateway: 61 });
    expect(small.chdbMb).toBe(204);
    for (const service of ["management", "redirect", "analytics", "gateway"] as const)
      expect(large.oldSpaceMb[service]).toBeGreaterThan(small.oldSpaceMb[service]);
    expect(large.chdbMb).toBeGreaterThan(small.chdbMb);
  });

  it("refuses a budget below the minimum, naming both", () => {
    expect(memoryPlanFrom(String(MEMORY_MIN_MB - 1))).toEqual({
      refused: expect.stringMatching(
        new RegExp(`KURZ_MEMORY_MB=${MEMORY_MIN_MB - 1} is below ${MEMORY_MIN_MB}`),
      ),
    });
  });

  it("refuses anything but a whole number of MB", () => {
    for (const value of ["1.5e3", "-2048", "2 GB", "abc"])
      expect(memoryPlanFrom(value)).toEqual({ refused: expect.stringContaining("whole number") });
  });
});

describe("memoryBoundsFor", () => {
  it("gives every service its old generation, and analytics chDB's bound", () => {
    const plan = memoryPlanFrom("2048") as Exclude<ReturnType<typeof memoryPlanFrom>, { refused: string }>;
    expect(memoryBoundsFor("analytics", plan)).toEqual({
      nodeFlags: [`--max-old-space-size=${plan.oldSpaceMb.analytics}`],
      env: { MALLOC_ARENA_MAX: "2", KURZ_LEAN_CODE_PAGES: "1", CHDB_MEMORY_MB: String(plan.chdbMb) },
    });
    expect(memoryBoundsFor("redirect", plan)).toEqual({
      nodeFlags: [`--max-old-space-size=${plan.oldSpaceMb.redirect}`],
      env: { MALLOC_ARENA_MAX: "2", KURZ_LEAN_CODE_PAGES: "1" },
    });
  });
});

describe("containerLimitMb", () => {
  it("is each service's old generation, young generation, Node's base and what it holds outside the heap", () => {
    const plan = memoryPlanFrom(String(MEMORY_MIN_MB)) as Exclude<
      ReturnType<typeof memoryPlanFrom>,
      { refused: string }
    >;
    // The young generation is three semi-spaces' worth: the redirect's 16 MB, analytics' 8 MB, the
    // gateway's and management's 4 MB.
    expect(containerLimitMb("redirect", plan)).toBe(NODE_BASE_MB + 48 + 122 + OUTSIDE_HEAP_MB.redirect);
    expect(containerLimitMb("management", plan)).toBe(NODE_BASE_MB + 12 + 163 + OUTSIDE_HEAP_MB.management);
    expect(containerLimitMb("gateway", plan)).toBe(NODE_BASE_MB + 12 + 61 + OUTSIDE_HEAP_MB.gateway);
    // No chDB in a container: neither its library nor its share of the budget is in analytics' limit.
    expect(containerLimitMb("analytics", plan)).toBe(NODE_BASE_MB + 24 + 61 + OUTSIDE_HEAP_MB.analytics);
  });
});
