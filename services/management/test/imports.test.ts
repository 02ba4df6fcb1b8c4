// /api/v1/imports and /api/v1/exports/links through the gateway on a real stack (Postgres, Redis, the
// bus): jobs run by management's worker, per-row errors, the link limit mid-file, idempotent re-runs,
// a job interrupted mid-way resumed by the service without duplicates, and the CSV round trip.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { waitFor } from "@kurz/testing";
import { useHttpServer } from "@kurz/testing/use-stack";
import { parse as parseCsv } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { createImportJob } from "../src/imports/create-import-job.ts";
import { IMPORT_ALIAS_TAKEN, importLimitReached } from "../src/imports/import-batch.ts";
import { runImportJob } from "../src/imports/import-worker.ts";
import { storedLinkCount } from "../src/links/link-count.ts";
import { RedirectRecords } from "../src/projections/link-records.ts";
import { hashPassword } from "../src/security/passwords.ts";
import { TitleFetcher } from "../src/titles/title-fetcher.ts";
import {
  expectV1Error,
  expectV1Success,
  uniqueAlias,
  useLinksStack,
  type V1Caller,
} from "./links-helpers.ts";

let pageHits = 0;
const page = useHttpServer((req, res) => {
  pageHits++;
  res.writeHead(200, { "content-type": "text/html" });
  res.end(`<title>Page ${req.url?.slice(1)}</title>`);
});
const bed = useLinksStack(
  {
    IMPORT_POLL_MS: "100",
    IMPORT_LEASE_MS: "1500",
    IMPORT_BATCH_SIZE: "50",
    TITLE_FETCH_ALLOW_HOSTS: "127.0.0.1",
  },
  { keepOutboxEvents: true },
);

/** POST the file as the body; the media type says nothing the content does not (format=auto). */
const upload = (api: V1Caller, file: string | Buffer, query = "", type = "text/csv") =>
  api("POST", `/imports${query}`, file.toString(), { "content-type": type });

/** Every row is in exactly one count: the four add up to the rows handled, all of them once completed. */
function expectCountsAddUp(job: { status: string; counts: Record<string, number> }) {
  const c = job.counts;
  expect(c.created! + c.skipped! + c.needs_attention! + c.failed!, JSON.stringify(c)).toBe(c.processed);
  if (job.status === "completed") expect(c.processed).toBe(c.total);
}

/** A job's counts exactly: all `total` rows processed, each in one count (those not given are 0). */
function expectCounts(
  job: { counts: Record<string, number> },
  total: number,
  counts: Partial<Record<"created" | "skipped" | "needs_attention" | "failed", number>>,
) {
  expect(job.counts).toEqual({
    total,
    processed: total,
    created: 0,
    skipped: 0,
    needs_attention: 0,
    failed: 0,
    ...counts,
  });
}

/** Polls the job until it ends (bounded: 20 s); its counts add up at every look. */
async function finished(api: V1Caller, id: string) {
  const looks: { status: string; counts: Record<string, number> }[] = [];
  const job = await waitFor(
    async () => {
      const res = await api("GET", `/imports/${id}`);
      expectV1Success(res);
      looks.push(res.body.data);
      return res.body.data.status === "completed" || res.body.data.status === "failed" ? res.body.data : null;
    },
    { timeoutMs: 20_000, intervalMs: 100, description: `import ${id} to end` },
  );
  for (const look of looks) expectCountsAddUp(look);
  return job;
}

const storedCount = (accountId: string) => storedLinkCount(bed.prisma, accountId);
const linkCount = (accountId: string) => bed.prisma.link.count({ where: { accountId } });

const fixture = (name: string) => readFileSync(join(import.meta.dirname, "fixtures/imports", name));

describe("POST /api/v1/imports", () => {
  it("queues the file (202), creates its links with their outbox events and redirect records", async () => {
    const { api, accountId } = await bed.newAccount("imp-basic");
    const a = uniqueAlias("imp");
    const csv = `url,alias,title,expires_at,password\nhttps://example.com/1,${a},One,2031-01-01T00:00:00Z,\nhttps://example.com/2,,,,longpassword1\n`;
    const res = await upload(api, csv, "?filename=links.csv");
    expectV1Success(res, 202);
    expect(res.body.data).toMatchObject({ status: "queued", format: "csv", filename: "links.csv" });
    expect(res.body.data.counts).toMatchObject({ total: 2, processed: 0 });

    const job = await finished(api, res.body.data.id);
    expect(job).toMatchObject({ status: "completed", progress: 1, error: null });
    expectCounts(job, 2, { created: 2 });

    const links = await bed.prisma.link.findMany({ where: { accountId }, orderBy: { originalUrl: "asc" } });
    expect(links.map((l) => [l.originalUrl, l.title, l.passwordHash !== null])).toEqual([
      ["https://example.com/1", "One", false],
      ["https://example.com/2", "example.com", true], // no title and none fetched: the host
    ]);
    expect(links[0]?.shortCode).toBe(a);
    expect(links[0]?.expiresAt?.toISOString()).toBe("2031-01-01T00:00:00.000Z");
    expect(await storedCount(accountId)).toBe(2);
    const events = await bed.prisma.outboxEvent.findMany({ where: { key: { in: links.map((l) => l.id) } } });
    expect(events.map((e) => (e.payload as { type: string }).type)).toEqual(["link.created", "link.created"]);
    expect(await bed.redirectRecord(a)).toMatchObject({
      url: "https://example.com/1",
      active: true,
    });
  });

  it("gives rows without expires_at the account's default expiry, in the link and in its event alike", async () => {
    const { api, accountId } = await bed.newAccount("imp-expiry");
    await bed.prisma.account.update({ where: { id: accountId }, data: { defaultExpiryHours: 48 } });
    const before = Date.now();
    const csv = "url,expires_at\nhttps://example.com/e1,\nhttps://example.com/e2,2031-01-01T00:00:00Z\n";
    const job = await finished(api, (await upload(api, csv)).body.data.id);
    expect(job.counts).toMatchObject({ created: 2, failed: 0 });
    const links = await bed.prisma.link.findMany({ where: { accountId }, orderBy: { originalUrl: "asc" } });
    const defaulted = links[0]?.expiresAt?.getTime() ?? 0;
    expect(defaulted).toBeGreaterThanOrEqual(before + 48 * 3_600_000);
    expect(defaulted).toBeLessThanOrEqual(Date.now() + 48 * 3_600_000);
    expect(links[1]?.expiresAt?.toISOString()).toBe("2031-01-01T00:00:00.000Z");
    const events = await bed.prisma.outboxEvent.findMany({ where: { key: { in: links.map((l) => l.id) } } });
    const expiryInEvent = new Map(
      events.map((e) => {
        const p = e.payload as { link_id: string; link: { expires_at: string | null } };
        return [p.link_id, p.link.expires_at];
      }),
    );
    expect(links.map((l) => expiryInEvent.get(l.id))).toEqual(links.map((l) => l.expiresAt?.toISOString()));
  });

  it("fetches titles only when asked (fetch_titles=true)", async () => {
    const { api, accountId } = await bed.newAccount("imp-titles");
    const before = pageHits;
    const plain = await finished(api, (await upload(api, `url\n${page().origin}/plain\n`)).body.data.id);
    expect(plain.fetch_titles).toBe(false);
    expect(pageHits).toBe(before);
    const fetched = await finished(
      api,
      (await upload(api, `url\n${page().origin}/fetched\n`, "?fetch_titles=true")).body.data.id,
    );
    expect(fetched.fetch_titles).toBe(true);
    expect(pageHits).toBe(before + 1);
    const titles = (
      await bed.prisma.link.findMany({ where: { accountId }, orderBy: { originalUrl: "asc" } })
    ).map((l) => l.title);
    expect(titles).toEqual(["Page fetched", "127.0.0.1"]);
  });

  it("imports every sample file of every format, each job's counts adding up to its rows", async () => {
    // Sample codes are global: one account per run would collide, so each sample is imported once here
    // (the samples of one source share codes and URLs: the second of them is skipped).
    const { api, accountId } = await bed.newAccount("imp-samples");
    const samples = [
      "kurz.csv",
      "kurz-reordered.csv",
      "bitly.csv",
      "shlink.json",
      "shlink.csv",
      "kutt.json",
      "yourls.json",
      "yourls.csv",
      "yourls-dump/batch.tsv",
      "yourls-dump/outfile.csv",
      "yourls-dump/outfile.tsv",
    ];
    const outcome: Record<string, unknown> = {};
    for (const name of samples) {
      const type = name.endsWith(".json") ? "application/json" : "text/csv";
      const res = await upload(api, fixture(name), "", type);
      expectV1Success(res, 202);
      const job = await finished(api, res.body.data.id);
      expect(job.status, name).toBe("completed");
      const { created, skipped, needs_attention, failed } = job.counts;
      outcome[name] = { format: job.format, created, skipped, needs_attention, failed };
    }
    const counts = (format: string, created: number, skipped = 0, needs_attention = 0) => ({
      format,
      created,
      skipped,
      needs_attention,
      failed: 0,
    });
    expect(outcome).toEqual({
      "kurz.csv": counts("csv", 3),
      "kurz-reordered.csv": counts("csv", 1),
      "bitly.csv": counts("bitly", 2),
      "shlink.json": counts("shlink", 2),
      "shlink.csv": counts("shlink", 0, 2),
      // Kutt says kutt-two has a password but not which: an inactive link for its owner to finish.
      "kutt.json": counts("kutt", 1, 0, 1),
      "yourls.json": counts("yourls", 2),
      "yourls.csv": counts("yourls", 0, 2),
      // Which of the dumps' codes are taken depends on the code rules; their counts add up all the same.
      "yourls-dump/batch.tsv": expect.objectContaining({ format: "yourls", needs_attention: 0 }),
      "yourls-dump/outfile.csv": expect.objectContaining({
        format: "yourls",
        created: 0,
        needs_attention: 0,
      }),
      "yourls-dump/outfile.tsv": expect.objectContaining({
        format: "yourls",
        created: 0,
        needs_attention: 0,
      }),
    });
    // Each link made is a created or a needs_attention row of exactly one job.
    const made = Object.values(outcome).reduce<number>((sum, o) => {
      const { created, needs_attention } = o as { created: number; needs_attention: number };
      return sum + created + needs_attention;
    }, 0);
    expect(await linkCount(accountId)).toBe(made);
  });

  it("creates a Kutt link protected by a password it does not export inactive, for its owner to finish", async () => {
    const { api, accountId } = await bed.newAccount("imp-kutt-protected");
    const open = uniqueAlias("ko");
    const locked = uniqueAlias("kl");
    const kutt = JSON.stringify({
      data: [
        { address: open, target: "https://example.net/open", password: false, description: "Open" },
        { address: locked, target: "https://example.net/locked", password: true, description: "Locked" },
      ],
      total: 2,
      limit: 10,
      skip: 0,
    });
    const job = await finished(api, (await upload(api, kutt, "", "application/json")).body.data.id);
    expectCounts(job, 2, { created: 1, needs_attention: 1 });
    const needing = {
      row: 2,
      alias: locked,
      url: "https://example.net/locked",
      reason: "protected in Kutt; Kutt does not export passwords: set a password and activate",
      link: { short_code: locked, is_active: false, has_password: false },
    };
    expect(job.attention_preview).toEqual([expect.objectContaining(needing)]);
    const linkId = job.attention_preview[0].link_id as string;
    const listed = await api("GET", `/imports/${job.id}/attention`);
    expectV1Success(listed);
    expect(listed.body.data).toEqual([{ ...needing, link_id: linkId }]);
    expect(listed.body.meta).toEqual({ page: 1, per_page: 20, total: 1, total_pages: 1 });

    // Until its owner acts, the protected link answers as any inactive link: not found, no redirect.
    const short = (code: string) => `${bed.stack.origin}/${code}`;
    expect((await fetch(short(open), { redirect: "manual" })).status).toBe(302);
    const before = await fetch(short(locked), { redirect: "manual" });
    expect(before.status).toBe(404);
    expect(await bed.redirectRecord(locked)).toMatchObject({ active: false, password_hash: null });

    // Re-importing the file (before or after activation) creates nothing twice.
    const again = await finished(api, (await upload(api, kutt, "", "application/json")).body.data.id);
    expectCounts(again, 2, { skipped: 2 });
    expect(await linkCount(accountId)).toBe(2);

    // The owner sets the password they used in Kutt and activates the link (the links API's PATCH).
    expectV1Success(await api("PATCH", `/links/${linkId}`, { password: "kutt-secret-1", is_active: true }));
    const form = await fetch(short(locked), { redirect: "manual" });
    expect(form.status).toBe(200);
    expect(await form.text()).toMatch(/password/i);
    const through = await fetch(short(locked), {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "password=kutt-secret-1",
    });
    expect(through.status).toBe(303); // the browser follows with a GET: the password is not re-posted
    expect(through.headers.get("location")).toBe("https://example.net/locked");
    const after = await api("GET", `/imports/${job.id}/attention`);
    expect(after.body.data[0].link).toEqual({ short_code: locked, is_active: true, has_password: true });
    expect((await api("GET", `/imports/${job.id}`)).body.data.counts.needs_attention).toBe(1);
    expect(await linkCount(accountId)).toBe(2);
  });

  it("takes a real Kutt export saved page by page as one file, every row read", async () => {
    // Kutt answers 50 links a page; its three recorded pages, one after another as `curl >>` saves them.
    const pages = ["page-1.json", "page-2.json", "page-3.json"].map((n) => fixture(`kutt-v3/${n}`));
    const total = JSON.parse(pages[0]!.toString()).total as number;
    const { api } = await bed.newAccount("imp-kutt-pages");
    const res = await upload(api, Buffer.concat(pages), "", "application/json");
    expectV1Success(res, 202);
    const job = await finished(api, res.body.data.id);
    expect(job).toMatchObject({ status: "completed", format: "kutt", counts: { total, processed: total } });
    const { created, skipped, needs_attention, failed } = job.counts;
    expect(created + skipped + needs_attention + failed).toBe(total);
    // Kutt's protected links (README of kutt-v3/) need their owner; the rest of the codes are kept.
    expect(needs_attention).toBe(
      pages.flatMap((p) => JSON.parse(p.toString()).data).filter((l: { password: boolean }) => l.password)
        .length,
    );
  });

  it("reports invalid rows and taken aliases per row, downloadable as CSV, and creates the rest", async () => {
    const { api: other } = await bed.newAccount("imp-other");
    const taken = uniqueAlias("tkn");
    expectV1Success(
      await other("POST", "/links", { url: "https://example.com/theirs", custom_alias: taken }),
      201,
    );
    const { api, accountId } = await bed.newAccount("imp-errors");
    const ok = uniqueAlias("ok");
    const csv = [
      "url,alias,password,expires_at",
      `https://example.com/ok,${ok},,`,
      "not a url,,,",
      `https://example.com/t,${taken},,`,
      `https://example.com/long-pw,,${"x".repeat(129)},`,
      "https://example.com/date,,,someday",
      "https://example.com/bad-alias,bad.alias,,",
      `https://example.com/dup,${ok},,`,
    ].join("\n");
    const job = await finished(api, (await upload(api, csv)).body.data.id);
    expectCounts(job, 7, { created: 1, failed: 6 });
    expect(job.errors_preview.map((e: { row: number }) => e.row)).toEqual([2, 3, 4, 5, 6, 7]);
    expect(await linkCount(accountId)).toBe(1);

    const errors = await api("GET", `/imports/${job.id}/errors`);
    expect(errors.status).toBe(200);
    expect(errors.headers.get("content-type")).toMatch(/^text\/csv/);
    const lines: string[][] = parseCsv(String(errors.body));
    expect(lines[0]).toEqual(["row", "alias", "url", "error"]);
    expect(lines).toHaveLength(7);
    expect(lines[1]?.slice(0, 3)).toEqual(["2", "", "not a url"]);
    expect(lines[1]?.[3]).toMatch(/^url: Invalid URL\. To import it, /);
    expect(lines[2]).toEqual(["3", taken, "https://example.com/t", IMPORT_ALIAS_TAKEN]);
    expect(lines[3]?.[3]).toMatch(/^password: .*\. To import it, /);
    expect(lines[4]?.[3]).toMatch(/^expires_at: Expected an ISO 8601 date.*\. To import it, /);
    expect(lines[5]?.[3]).toMatch(/^alias: .*\. To import it, /);
    expect(lines[6]).toEqual(["7", ok, "https://example.com/dup", IMPORT_ALIAS_TAKEN]);
  });

  it("stops at the link limit mid-file and reports each row past it", async () => {
    const { api, accountId } = await bed.newAccount("imp-limit", 5);
    expectV1Success(await api("POST", "/links", { url: "https://example.com/existing" }), 201);
    // 120 rows in batches of 50: the limit falls inside the first batch.
    const rows = Array.from({ length: 120 }, (_, i) => `https://example.com/limit/${i}`);
    const job = await finished(api, (await upload(api, `url\n${rows.join("\n")}\n`)).body.data.id);
    expectCounts(job, 120, { created: 4, failed: 116 });
    expect(job.errors_preview[0]).toEqual({ row: 5, error: importLimitReached(5) });
    expect(await linkCount(accountId)).toBe(5);
    expect(await storedCount(accountId)).toBe(5);
  });

  it("does not duplicate anything when the same or an extended file is imported again", async () => {
    const { api, accountId } = await bed.newAccount("imp-rerun");
    const a = uniqueAlias("rr");
    const csv = `url,alias\nhttps://example.com/r1,${a}\nhttps://example.com/r2,\n`;
    const first = await upload(api, csv);
    const job = await finished(api, first.body.data.id);
    expect(job.counts.created).toBe(2);

    // The same bytes after the job ended: a new job, every row already there.
    const again = await finished(api, (await upload(api, csv)).body.data.id);
    expect(again.id).not.toBe(job.id);
    expectCounts(again, 2, { skipped: 2 });

    const extended = await upload(api, `${csv}https://example.com/r3,\n`);
    const second = await finished(api, extended.body.data.id);
    expectCounts(second, 3, { created: 1, skipped: 2 });
    expect(await linkCount(accountId)).toBe(3);
    expect(await storedCount(accountId)).toBe(3);
  });

  it("answers the running job when the same file is uploaded while it runs", async () => {
    const { api, accountId } = await bed.newAccount("imp-twice");
    const file = Buffer.from(`url\nhttps://example.com/twice/${uniqueAlias("t")}\n`);
    // Held as by the CLI, so it stays running while the second upload arrives.
    const { job: held } = await createImportJob(bed.prisma, accountId, file, {}, { claimedForMs: 60_000 });
    const again = await upload(api, file);
    expectV1Success(again, 202);
    expect(again.body.data.id).toBe(held.id);
    expect(again.body.data.status).toBe("running");
  });

  it("refuses an account's third job queued or running, for the CLI (which creates its job held) as for the API", async () => {
    const { accountId } = await bed.newAccount("imp-cap");
    const file = (n: number) => Buffer.from(`url\nhttps://example.com/cap/${uniqueAlias("c")}/${n}\n`);
    await createImportJob(bed.prisma, accountId, file(1), {}, { claimedForMs: 60_000 });
    await createImportJob(bed.prisma, accountId, file(2), {}, { claimedForMs: 60_000 });
    await expect(
      createImportJob(bed.prisma, accountId, file(3), {}, { claimedForMs: 60_000 }),
    ).rejects.toMatchObject({
      status: 429,
      code: "RATE_LIMIT_EXCEEDED",
      message: expect.stringMatching(/already has 2 imports queued or running/),
    });
    expect(await bed.prisma.importJob.count({ where: { accountId } })).toBe(2);
  });

  it("resumes a job interrupted mid-way after its lease expires, without duplicates", async () => {
    const { api, accountId } = await bed.newAccount("imp-resume");
    const rows = Array.from(
      { length: 130 },
      (_, i) => `https://example.com/resume/${i},${uniqueAlias("rs")}`,
    );
    const file = Buffer.from(`url,alias\n${rows.join("\n")}\n`);
    // Created held (as the CLI does), so only this "worker" runs it until it stops.
    const { job } = await createImportJob(bed.prisma, accountId, file, {}, { claimedForMs: 1500 });
    const finishedHere = await runImportJob(
      {
        prisma: bed.prisma,
        records: new RedirectRecords(bed.redis, console),
        titles: new TitleFetcher({ enabled: false, allowHosts: [], perHostPerMinute: 1 }),
        chargeTitles: async () => 0,
        hashes: { hash: (password) => hashPassword(password) },
        onEventsWritten: () => {},
        retiredCodeGraceMs: 0,
        logger: console,
        batchSize: 50,
        leaseMs: 1500,
        pollMs: 100,
      },
      {
        id: job.id,
        accountId,
        format: "csv",
        fetchTitles: false,
        titleBudget: null,
        domainId: null,
        renameReserved: null,
        content: file,
        processed: 0,
      },
      { maxBatches: 1 }, // the worker "dies" after one committed batch
    );
    expect(finishedHere).toBe(false);
    expect(await linkCount(accountId)).toBe(50);
    // The service's worker takes it over once the dead worker's lease expires.
    const done = await finished(api, job.id);
    expectCounts(done, 130, { created: 130 });
    expect(await linkCount(accountId)).toBe(130);
    expect(await storedCount(accountId)).toBe(130);
    const events = await bed.prisma.outboxEvent.count({
      where: { key: { in: (await bed.prisma.link.findMany({ where: { accountId } })).map((l) => l.id) } },
    });
    expect(events).toBe(130);
  });

  it("lists the account's jobs only", async () => {
    const { api } = await bed.newAccount("imp-list");
    const res = await upload(api, `url\nhttps://example.com/${uniqueAlias("l")}\n`);
    await finished(api, res.body.data.id);
    const list = await api("GET", "/imports");
    expectV1Success(list);
    expect(list.body.data.map((j: { id: string }) => j.id)).toEqual([res.body.data.id]);
    expect(list.body.meta).toEqual({ page: 1, per_page: 20, total: 1, total_pages: 1 });
  });

  it("takes a file larger than the gateway's general body limit (1 MiB)", async () => {
    const { api, accountId } = await bed.newAccount("imp-large");
    const notes = "n".repeat(6_000);
    const rows = Array.from({ length: 200 }, (_, i) => `https://example.com/large/${i},${notes}`);
    const file = `url,notes\n${rows.join("\n")}\n`;
    expect(file.length).toBeGreaterThan(1024 * 1024);
    const job = await finished(api, (await upload(api, file)).body.data.id);
    expect(job.counts).toMatchObject({ total: 200, created: 200 });
    expect(await linkCount(accountId)).toBe(200);
  });

  it("refuses a malformed file with 400 and creates no job", async () => {
    const { api } = await bed.newAccount("imp-bad");
    expectV1Error(
      await upload(api, '{"shortUrls": [', "", "application/json"),
      400,
      "BAD_REQUEST",
      /not valid JSON/,
    );
    expectV1Error(await upload(api, "name\nfoo\n"), 400, "BAD_REQUEST", /No destination URL column/);
    expectV1Error(
      await api("POST", "/imports", undefined, { "content-type": "text/csv" }),
      400,
      "VALIDATION_ERROR",
    );
    expect((await api("GET", "/imports")).body.meta.total).toBe(0);
  });
});

describe("GET /api/v1/exports/links", () => {
  it("exports every field as CSV and JSON, and the CSV imports back", async () => {
    const { api, accountId } = await bed.newAccount("exp-rt");
    const a = uniqueAlias("ex");
    const b = uniqueAlias("ex");
    expectV1Success(
      await api("POST", "/links", {
        url: "https://example.com/x?q=1,2",
        custom_alias: a,
        title: '=HYPERLINK("evil")',
        expires_at: "2032-02-02T00:00:00Z",
      }),
      201,
    );
    expectV1Success(
      await api("POST", "/links", { url: "https://example.com/y", custom_alias: b, title: "Plain" }),
      201,
    );

    const json = await api("GET", "/exports/links?format=json");
    expect(json.status).toBe(200);
    expect(json.headers.get("content-type")).toMatch(/^application\/json/);
    expect(json.body).toHaveLength(2);
    expect(Object.keys(json.body[0]).sort()).toEqual(
      [
        "analytics_public",
        "analytics_shared_fields",
        "clicks_count",
        "created_at",
        "expires_at",
        "has_password",
        "id",
        "is_active",
        "original_url",
        "short_code",
        "short_url",
        "title",
        "updated_at",
      ].sort(),
    );

    const csv = await api("GET", "/exports/links");
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    const text = String(csv.body);
    expect(text.split("\r\n")[0]).toBe(
      "id,short_code,short_url,original_url,title,is_active,has_password,expires_at,clicks_count,analytics_public,analytics_shared_fields,created_at,updated_at",
    );
    expect(text).toContain(`"'=HYPERLINK(""evil"")"`); // neutralised and quoted

    // Round trip: delete the links (their codes stay reserved to this account), import the export.
    const ids = json.body.map((l: { id: string }) => l.id);
    expectV1Success(await api("DELETE", "/links/bulk", { ids }));
    const job = await finished(api, (await upload(api, text)).body.data.id);
    expect(job.counts).toMatchObject({ created: 2, failed: 0 });
    const back = await bed.prisma.link.findMany({ where: { accountId }, orderBy: { shortCode: "asc" } });
    const before = [...json.body].sort((x, y) => (x.short_code < y.short_code ? -1 : 1));
    expect(
      back.map((l) => [l.shortCode, l.originalUrl, l.title, l.expiresAt?.toISOString() ?? null]),
    ).toEqual(
      before.map(
        (l: { short_code: string; original_url: string; title: string; expires_at: string | null }) => [
          l.short_code,
          l.original_url,
          l.title,
          l.expires_at,
        ],
      ),
    );
  });
});
