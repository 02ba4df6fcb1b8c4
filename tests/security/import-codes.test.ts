// Attacks through the codes an import keeps (docs/import-export.md, "Codes"): a file whose codes try to
// take Kurz's own paths (`api`, `docs`, in any case), to escape the path (`..`, `%2e`, `a/b`), or to pass
// for something else (`-`, a 101-character code, letters of another script that look like Latin ones);
// a rename prefix that is no code; and a branded domain that is another account's. None creates a
// link, none is served, and the public host's own routes answer as before.
import { describe, expect, it } from "vitest";
import { attackerAndVictim, bearer, expectV1Error, importCalls, raw, useAttackStack } from "./attack.ts";

const bed = useAttackStack({ IMPORT_POLL_MS: "100" }, { inProcess: true });
const { upload, completed: finishedJob } = importCalls(bed);

// Each code and the path a visitor would send for it.
const HOSTILE: [code: string, path: string][] = [
  ["api", "/api"],
  ["API", "/API"],
  ["docs", "/docs"],
  ["Login", "/Login"],
  ["dashboard", "/dashboard"],
  ["..", "/.."],
  ["%2e", "/%2e"],
  ["%2e%2e", "/%2e%2e"],
  ["a/b", "/a/b"],
  ["-", "/-"],
  ["__", "/__"],
  ["x".repeat(101), `/${"x".repeat(101)}`],
  ["\u0430pi", `/${encodeURIComponent("\u0430pi")}`], // Cyrillic а
  ["\uff41pi", `/${encodeURIComponent("\uff41pi")}`], // full-width ａ
  ["doc\u0455", `/${encodeURIComponent("doc\u0455")}`], // Cyrillic ѕ
];

describe("codes that try to take Kurz's paths or escape them", () => {
  it("are refused row by row, create nothing, and are never served", async () => {
    const { victim, asVictim } = await attackerAndVictim(bed.stack, "imp-codes");
    const csv = [
      "keyword,url",
      ...HOSTILE.map(([code]) => `"${code}",https://evil.example/${HOSTILE.length}`),
    ];
    const res = await upload(victim.api_key, csv.join("\n"));
    expect(res.status, res.text).toBe(202);
    const job = await finishedJob(victim.api_key, res.body.data.id);
    expect(job.counts).toMatchObject({ total: HOSTILE.length, created: 0, failed: HOSTILE.length });
    const links = await asVictim("GET", "/api/v1/links");
    expect(links.body.data).toEqual([]);

    const errors = await raw(bed.stack.origin, "GET", `/api/v1/imports/${job.id}/errors`, {
      headers: bearer(victim.api_key),
    });
    const rows = errors.text.trim().split("\r\n").slice(1);
    expect(rows).toHaveLength(HOSTILE.length);
    for (const [i, [code]] of HOSTILE.entries()) {
      const expected = ["api", "API", "docs", "Login", "dashboard"].includes(code)
        ? "one of Kurz's own paths"
        : "Only letters, digits, _ and -";
      expect(rows[i], code).toContain(expected);
    }

    for (const [code, path] of HOSTILE) {
      const answer = await raw(bed.stack.origin, "GET", path);
      expect(answer.headers.location, code).toBeUndefined();
      expect(answer.text, code).not.toContain("evil.example");
    }
    // Kurz's own routes answer as before.
    expectV1Error(await raw(bed.stack.origin, "GET", "/api/v1/links"), 401, "UNAUTHORIZED");
    expect((await raw(bed.stack.origin, "GET", "/docs")).status).toBe(200);
  });

  it("a rename prefix that is no code is refused before a job exists", async () => {
    const { victim, asVictim } = await attackerAndVictim(bed.stack, "imp-prefix");
    for (const prefix of ["..", "a/b", "%2e", "-", "p".repeat(21), "\u0430", ""]) {
      const res = await upload(victim.api_key, "keyword,url\napi,https://evil.example/\n", {
        query: `?rename_reserved=${encodeURIComponent(prefix)}`,
      });
      expectV1Error(res, 400, "VALIDATION_ERROR");
    }
    expect((await asVictim("GET", "/api/v1/imports")).body.data).toEqual([]);
  });

  it("another account's branded domain cannot take the codes: the job is refused before it exists", async () => {
    const { attacker, asAttacker, asVictim } = await attackerAndVictim(bed.stack, "imp-domain");
    const host = `go.victim-${process.pid}${Date.now().toString(36)}.test`;
    const added = await asVictim("POST", "/api/domain/add", { domain: `https://${host}` });
    expect(added.status, added.text).toBe(200);
    const res = await upload(attacker.api_key, "keyword,url\ndocs,https://evil.example/\n", {
      query: `?domain=${host}`,
    });
    expectV1Error(res, 400, "VALIDATION_ERROR");
    expect(res.text).toContain("Not a branded domain of your account");
    expect((await asAttacker("GET", "/api/v1/imports")).body.data).toEqual([]);
  });
});
