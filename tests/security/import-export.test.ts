// Attacks on imports and exports (docs/import-export.md, docs/security.md): reading another account's import,
// its refused rows or its rows that need their owner (and finishing those links), spreadsheet formulas
// smuggled through exported cells, oversized and malformed uploads, another account's links and clicks in the
// analytics export (paged by rows, so memory stays constant), and the import's "already shortened" check (an
// indexed lookup, links_account_id_url_hash_idx) telling one account about another's URLs.
import { IMPORT_MAX_BYTES } from "@kurz/contracts";
import { waitFor } from "@kurz/testing";
import { describe, expect, it } from "vitest";
import { attackerAndVictim, bearer, expectV1Error, importCalls, raw, useAttackStack } from "./attack.ts";

const bed = useAttackStack({ IMPORT_POLL_MS: "100" }, { inProcess: true });
const { upload: uploadAs, completed: finishedJob } = importCalls(bed);

describe("imports are the account's own", () => {
  it("answers 404 for another account's import, its errors and keeps it out of the list", async () => {
    const { attacker, victim, asAttacker } = await attackerAndVictim(bed.stack, "imp-idor");
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

describe("rows that need their owner are the account's own", () => {
  it("another account can neither list a protected Kutt row nor set its password and activate its link", async () => {
    const { attacker, victim, asAttacker, asVictim } = await attackerAndVictim(bed.stack, "imp-attention");
    const code = `kutt-${Date.now().toString(36)}`;
    const kutt = (target: string) =>
      JSON.stringify({ data: [{ address: code, target, password: true }], total: 1, limit: 1, skip: 0 });
    const upload = await uploadAs(victim.api_key, kutt("https://example.com/victim-private"), {
      type: "application/json",
    });
    expect(upload.status, upload.text).toBe(202);
    const job = await finishedJob(victim.api_key, upload.body.data.id);
    expect(job.counts).toMatchObject({ created: 0, needs_attention: 1 });
    const linkId = job.attention_preview[0].link_id as string;

    expectV1Error(await asAttacker("GET", `/api/v1/imports/${job.id}/attention`), 404, "NOT_FOUND");
    expectV1Error(await asAttacker("GET", `/api/v1/imports/${job.id}`), 404, "NOT_FOUND");
    // The link the row names, through the links API the dashboard uses to finish it.
    expectV1Error(await asAttacker("GET", `/api/v1/links/${linkId}`), 404, "NOT_FOUND");
    expectV1Error(
      await asAttacker("PATCH", `/api/v1/links/${linkId}`, { password: "attacker-chosen", is_active: true }),
      404,
      "NOT_FOUND",
    );
    // The same code in the attacker's own Kutt file is another account's: refused, nothing to finish.
    const theirs = await uploadAs(attacker.api_key, kutt("https://evil.example/"), {
      type: "application/json",
    });
    const refused = await finishedJob(attacker.api_key, theirs.body.data.id);
    expect(refused.counts).toMatchObject({ created: 0, needs_attention: 0, failed: 1 });
    expect(refused.attention_preview).toEqual([]);
    const own = await asAttacker("GET", `/api/v1/imports/${refused.id}/attention`);
    expect(own.body.data).toEqual([]);

    // The victim's link is as the import left it: inactive, without a password, not served.
    const link = await asVictim("GET", `/api/v1/links/${linkId}`);
    expect(link.body.data).toMatchObject({ is_active: false, has_password: false });
    expect((await raw(bed.stack.origin, "GET", `/${code}`)).status).toBe(404);
    const rows = await asVictim("GET", `/api/v1/imports/${job.id}/attention`);
    expect(rows.body.data[0].link).toEqual({ short_code: code, is_active: false, has_password: false });
  });
});

describe("formula injection", () => {
  const FORMULAS = ['=HYPERLINK("https://evil.example","x")', "+1+1", "-2+3", "@SUM(A1:A2)"];

  it("neutralises cells starting with = + - @ in the links export", async () => {
    const { victim, asVictim } = await attackerAndVictim(bed.stack, "exp-formula");
    for (const title of FORMULAS) {
      const res = await asVictim("POST", "/api/v1/links", { url: "https://example.com/f", title });
      expect(res.status, res.text).toBe(201);
    }
    const csv = await raw(bed.stack.origin, "GET", "/api/v1/exports/links", {
      headers: bearer(victim.api_key),
    });
    expect(csv.status).toBe(200);
    const titleCells = csv.text
      .trim()
      .split("\r\n")
      .slice(1)
      .map((line) => line.split(",").slice(4).join(","));
    for (const line of titleCells) expect(line).toMatch(/^"?'[=+\-@]/);
  });

  it("neutralises what an uploader wrote, echoed back in the refused rows' CSV", async () => {
    const { victim } = await attackerAndVictim(bed.stack, "imp-formula");
    const job = await uploadAs(
      victim.api_key,
      "url,alias\n\"=cmd|' /C calc'!A0\",@evil\nhttps://example.com,-bad!\n",
    );
    expect(job.status, job.text).toBe(202);
    await finishedJob(victim.api_key, job.body.data.id);
    const errors = await raw(bed.stack.origin, "GET", `/api/v1/imports/${job.body.data.id}/errors`, {
      headers: bearer(victim.api_key),
    });
    const rows = errors.text.trim().split("\r\n").slice(1);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/^1,'@evil,'=cmd\|' \/C calc'!A0,/);
    expect(rows[1]).toMatch(/^2,'-bad!,https:\/\/example.com,/);
  });
});

describe("the import's duplicate-URL check", () => {
  it("skips only the importer's own URLs: another account's same URL is neither skipped nor touched", async () => {
    const { attacker, victim, asVictim } = await attackerAndVictim(bed.stack, "imp-dup");
    const secret = `https://example.com/private-${Date.now()}/report?token=x`;
    const mine = await asVictim("POST", "/api/v1/links", { url: secret, title: "victim's" });
    expect(mine.status, mine.text).toBe(201);
    // Were the check not per account, "skipped" would tell the attacker the victim shortened this URL.
    const job = await uploadAs(attacker.api_key, `url\n${secret}\nhttps://example.com/other\n`);
    expect(job.status, job.text).toBe(202);
    const done = await finishedJob(attacker.api_key, job.body.data.id);
    expect(done.counts).toMatchObject({ total: 2, created: 2, skipped: 0, failed: 0 });
    // The victim's link is as it was, and the victim importing it is skipped as their own.
    const after = await asVictim("GET", `/api/v1/links/${mine.body.data.id}`);
    expect(after.body.data).toMatchObject({ original_url: secret, title: "victim's" });
    const again = await uploadAs(victim.api_key, `url\n${secret}\n`);
    const ownDone = await finishedJob(victim.api_key, again.body.data.id);
    expect(ownDone.counts).toMatchObject({ total: 1, created: 0, skipped: 1 });
  });
});

describe("uploads", () => {
  it("refuses a body over the upload limit with 413 and creates no job", async () => {
    const { victim, asVictim } = await attackerAndVictim(bed.stack, "imp-big");
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
    const { victim, asVictim } = await attackerAndVictim(bed.stack, "imp-bad");
    const res = await uploadAs(victim.api_key, body, { type });
    expectV1Error(res, 400, "BAD_REQUEST");
    expect(res.body.error.message.length).toBeGreaterThan(10);
    expect((await asVictim("GET", "/api/v1/account")).status).toBe(200);
  });
});

describe("analytics export", () => {
  it("answers 404 for another account's link", async () => {
    const { asAttacker, asVictim } = await attackerAndVictim(bed.stack, "exp-idor");
    const link = await asVictim("POST", "/api/v1/links", { url: "https://example.com/v", title: "v" });
    const res = await asAttacker("GET", `/api/v1/exports/analytics?link_id=${link.body.data.id}`);
    expectV1Error(res, 404, "NOT_FOUND");
  });
  it("never lists another account's clicks, whatever the dimension or period", async () => {
    const { asAttacker, asVictim } = await attackerAndVictim(bed.stack, "exp-tenant");
    const link = await asVictim("POST", "/api/v1/links", { url: "https://example.com/t", title: "t" });
    expect(link.status, link.text).toBe(201);
    const hit = await fetch(link.body.data.short_url, {
      redirect: "manual",
      headers: {
        "user-agent": "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
        referer: "https://ref.example/",
      },
    });
    expect(hit.status).toBe(302);
    await waitFor(
      async () => {
        const res = await asVictim("GET", "/api/v1/exports/analytics?dimension=referrer");
        return res.text.includes(link.body.data.id) ? res : null;
      },
      { timeoutMs: 20_000, intervalMs: 200, description: "the victim's click in the victim's export" },
    );
    for (const query of ["", "?dimension=referrer", "?dimension=city&start=2000-01-01&end=2100-01-01"]) {
      const res = await asAttacker("GET", `/api/v1/exports/analytics${query}`);
      expect(res.status).toBe(200);
      expect(res.text.trim().split("\r\n")).toHaveLength(1); // the header only
    }
    // Naming the victim's link, with or without a dimension, answers as a link that does not exist.
    for (const query of ["", "&dimension=referrer"]) {
      expectV1Error(
        await asAttacker("GET", `/api/v1/exports/analytics?link_id=${link.body.data.id}${query}`),
        404,
        "NOT_FOUND",
      );
    }
    // A period that ends before it starts, or a link id that is not one, is refused with the reason.
    expectV1Error(
      await asVictim("GET", "/api/v1/exports/analytics?start=2100-01-01&end=2000-01-01"),
      400,
      "VALIDATION_ERROR",
    );
    expectV1Error(
      await asAttacker("GET", "/api/v1/exports/analytics?link_id=x'%20OR%201=1"),
      400,
      "VALIDATION_ERROR",
    );
  });
});
