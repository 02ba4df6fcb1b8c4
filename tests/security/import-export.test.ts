// Attacks on imports and exports (docs/import-export.md, docs/security.md): reading another account's
// import or its refused rows, spreadsheet formulas smuggled through exported cells, oversized and
// malformed uploads, and another account's link in the analytics export.
import { IMPORT_MAX_BYTES } from "@kurz/contracts";
import { printProcessOutputOnFailure, waitFor } from "@kurz/testing";
import { type Stack, startStack } from "@kurz/testing/stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attackerAndVictim, bearer, expectV1Error, RELAXED_LIMITS, raw } from "./attack.ts";

printProcessOutputOnFailure();

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ inProcess: true, extraEnv: { ...RELAXED_LIMITS, IMPORT_POLL_MS: "100" } });
});
afterAll(async () => {
  await stack?.stop();
});

const uploadAs = (apiKey: string, body: string | Buffer, type = "text/csv") =>
  raw(stack.origin, "POST", "/api/v1/imports", {
    headers: { ...bearer(apiKey), "content-type": type },
    body,
  });

async function finishedJob(apiKey: string, id: string) {
  return waitFor(
    async () => {
      const res = await raw(stack.origin, "GET", `/api/v1/imports/${id}`, { headers: bearer(apiKey) });
      return res.body?.data?.status === "completed" ? res.body.data : null;
    },
    { timeoutMs: 20_000, intervalMs: 100, description: "import completed" },
  );
}

describe("imports are the account's own", () => {
  it("answers 404 for another account's import, its errors and keeps it out of the list", async () => {
    const { attacker, victim, asAttacker } = await attackerAndVictim(stack, "imp-idor");
    const job = await uploadAs(victim.api_key, "url\nnot-a-url\n");
    expect(job.status, job.text).toBe(202);
    const id = job.body.data.id as string;
    await finishedJob(victim.api_key, id);
    expectV1Error(await asAttacker("GET", `/api/v1/imports/${id}`), 404, "NOT_FOUND");
    expectV1Error(await asAttacker("GET", `/api/v1/imports/${id}/errors`), 404, "NOT_FOUND");
    const list = await asAttacker("GET", "/api/v1/imports");
    expect(list.body.data).toEqual([]);
    // The same bytes uploaded by the attacker make the attacker's own job, never the victim's.
    const mine = await uploadAs(attacker.api_key, "url\nnot-a-url\n");
    expect(mine.body.data.id).not.toBe(id);
  });
});

describe("formula injection", () => {
  const FORMULAS = ['=HYPERLINK("https://evil.example","x")', "+1+1", "-2+3", "@SUM(A1:A2)"];

  it("neutralises cells starting with = + - @ in the links export", async () => {
    const { victim, asVictim } = await attackerAndVictim(stack, "exp-formula");
    for (const title of FORMULAS) {
      const res = await asVictim("POST", "/api/v1/links", { url: "https://example.com/f", title });
      expect(res.status, res.text).toBe(201);
    }
    const csv = await raw(stack.origin, "GET", "/api/v1/exports/links", { headers: bearer(victim.api_key) });
    expect(csv.status).toBe(200);
    const titleCells = csv.text
      .trim()
      .split("\r\n")
      .slice(1)
      .map((line) => line.split(",").slice(4).join(","));
    for (const line of titleCells) expect(line).toMatch(/^"?'[=+\-@]/);
  });

  it("neutralises what an uploader wrote, echoed back in the refused rows' CSV", async () => {
    const { victim } = await attackerAndVictim(stack, "imp-formula");
    const job = await uploadAs(
      victim.api_key,
      "url,alias\n\"=cmd|' /C calc'!A0\",@evil\nhttps://example.com,-bad\n",
    );
    expect(job.status, job.text).toBe(202);
    await finishedJob(victim.api_key, job.body.data.id);
    const errors = await raw(stack.origin, "GET", `/api/v1/imports/${job.body.data.id}/errors`, {
      headers: bearer(victim.api_key),
    });
    const rows = errors.text.trim().split("\r\n").slice(1);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/^1,'@evil,'=cmd\|' \/C calc'!A0,/);
    expect(rows[1]).toMatch(/^2,'-bad,https:\/\/example.com,/);
  });
});

describe("uploads", () => {
  it("refuses a body over the upload limit with 413 and creates no job", async () => {
    const { victim, asVictim } = await attackerAndVictim(stack, "imp-big");
    const big = Buffer.alloc(IMPORT_MAX_BYTES + 1024, "a");
    const res = await uploadAs(victim.api_key, big);
    expectV1Error(res, 413, "PAYLOAD_TOO_LARGE");
    expect((await asVictim("GET", "/api/v1/imports")).body.meta.total).toBe(0);
  });

  it.each([
    ["a ZIP archive", Buffer.from("504b0304140000000800", "hex"), "application/octet-stream"],
    ["truncated JSON", Buffer.from('{"shortUrls":{"data":[{"longUrl":'), "application/json"],
    ["an unterminated quote", Buffer.from('url\n"https://example.com\n'), "text/csv"],
    ["a JSON document of another kind", Buffer.from('{"hello":"world"}'), "application/json"],
    ["a huge single cell", Buffer.from(`url\n${"x".repeat(100_000)}\n`), "text/csv"],
  ])("answers a malformed file (%s) with 400 and a reason, and stays up", async (_name, body, type) => {
    const { victim, asVictim } = await attackerAndVictim(stack, "imp-bad");
    const res = await uploadAs(victim.api_key, body, type);
    expectV1Error(res, 400, "BAD_REQUEST");
    expect(res.body.error.message.length).toBeGreaterThan(10);
    expect((await asVictim("GET", "/api/v1/account")).status).toBe(200);
  });
});

describe("analytics export", () => {
  it("answers 404 for another account's link", async () => {
    const { asAttacker, asVictim } = await attackerAndVictim(stack, "exp-idor");
    const link = await asVictim("POST", "/api/v1/links", { url: "https://example.com/v", title: "v" });
    const res = await asAttacker("GET", `/api/v1/exports/analytics?link_id=${link.body.data.id}`);
    expectV1Error(res, 404, "NOT_FOUND");
  });
});
