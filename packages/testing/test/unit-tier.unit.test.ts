import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { unitTestFiles, unitTierViolations } from "../src/unit-tier.ts";

const root = join(import.meta.dirname, "../../..");

describe("the unit tier (*.unit.test.ts, vitest.unit.ts)", () => {
  it("holds only files that import code and call it", () => {
    const files = unitTestFiles(root);
    expect(files).toContain("packages/testing/test/unit-tier.unit.test.ts");
    const broken = files.flatMap((f) => unitTierViolations(join(root, f)).map((why) => `${f} ${why}`));
    expect(broken).toEqual([]);
  });

  // A file beside this one, so that its relative imports resolve as a real test's would.
  const here = join(import.meta.dirname, "example.unit.test.ts");

  it("refuses a file that starts a stack", () => {
    const source =
      'import { startStack } from "@kurz/testing/stack";\nawait startStack({ inProcess: true });\n';
    expect(unitTierViolations(here, source)).toEqual(["imports a stack (@kurz/testing/stack)"]);
  });

  it("follows packages/testing's helpers to what they start", () => {
    const source = 'import { startTestDnsServer } from "../src/dns.ts";\n';
    expect(unitTierViolations(here, source)).toEqual([
      "imports a child process (../src/dns.ts -> ./process.ts -> node:child_process)",
    ]);
    expect(unitTierViolations(here, 'import { uniquePrefix } from "@kurz/testing";\n')).toContain(
      "imports Redis (@kurz/testing -> ./redis.ts -> ioredis)",
    );
  });

  it("refuses replaced modules and globals, and lets type-only imports and product code through", () => {
    expect(unitTierViolations(here, 'vi.mock("node:fs");\n')).toEqual([
      "calls vi.mock, which would reach the files run after it",
    ]);
    const source =
      'import type { Redis } from "ioredis";\nimport { waitFor } from "../src/wait.ts";\nimport { createBus } from "@kurz/bus";\n';
    expect(unitTierViolations(here, source)).toEqual([]);
  });
});
