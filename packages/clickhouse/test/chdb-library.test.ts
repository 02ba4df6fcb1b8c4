import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CHDB_LIBRARY_FILE } from "../src/index.ts";

// analytics reclaims the pages of the library by this name once started (service-kit's pageOutCode):
// a chDB release that renamed it would leave them resident without a word.
describe.skipIf(process.platform !== "linux")("chDB's library (Linux only: /proc/self/maps)", () => {
  it("is mapped under CHDB_LIBRARY_FILE once chdb is loaded", async () => {
    await import("chdb");
    const paths = readFileSync("/proc/self/maps", "utf8")
      .split("\n")
      .map((line) => line.trim().split(/\s+/).slice(5).join(" "));
    expect(paths.some((path) => path.endsWith(`/${CHDB_LIBRARY_FILE}`))).toBe(true);
  });
});
