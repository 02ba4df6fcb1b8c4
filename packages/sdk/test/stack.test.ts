// The SDK against a running stack (gateway, management, redirect and analytics in process, with real
// Postgres, Redis and bus): both API generations, typed errors from each envelope, pagination,
// imports, QR images, a real 429 retried after its Retry-After, and every README example.
import { execFile } from "node:child_process";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { useStack } from "@kurz/testing/use-stack";
import { describe, expect, it } from "vitest";
import { createKurzClient, KurzApiError, type KurzClient } from "../src/index.ts";
import { readmeExamples } from "./examples.ts";

const run = promisify(execFile);
// The legacy API's per-key budget a minute: low enough for one test to use it up, above what the
// other tests spend with one key (a refusal would make them wait out the minute).
const LEGACY_LIMIT = 8;
const bed = useStack({ inProcess: true, extraEnv: { LEGACY_RATE_LIMIT_PER_MINUTE: String(LEGACY_LIMIT) } });
let n = 0;
const email = (what: string) => `sdk-${what}-${process.pid}-${++n}@example.com`;

async function client(
  what: string,
  retry?: Parameters<typeof createKurzClient>[0]["retry"],
): Promise<KurzClient> {
  const account = await bed.stack.createAccount(email(what));
  return createKurzClient({
    baseUrl: bed.stack.origin,
    apiKey: account.api_key,
    ...(retry ? { retry } : {}),
  });
}

describe("v1", () => {
  it("creates, reads, updates and deletes a link with the records' types", async () => {
    const kurz = await client("crud");
    const link = await kurz.v1.createLink({
      body: { url: "https://example.com/a", custom_alias: "sdk-crud-a" },
    });
    expect(link).toMatchObject({ short_code: "sdk-crud-a", original_url: "https://example.com/a" });
    expect(link.short_url).toBe(`${bed.stack.origin}/sdk-crud-a`);
    const updated = await kurz.v1.updateLink({ params: { id: link.id }, body: { title: "Renamed" } });
    expect(updated.title).toBe("Renamed");
    expect((await kurz.v1.getLink({ params: { id: link.id } })).title).toBe("Renamed");
    expect(await kurz.v1.deleteLink({ params: { id: link.id } })).toEqual({ deleted: true });
    const gone = await kurz.v1.getLink({ params: { id: link.id } }).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(KurzApiError);
    expect(gone).toMatchObject({ status: 404, code: "NOT_FOUND", request: "GET /api/v1/links/:id" });
  });

  it("throws the envelope's code and details", async () => {
    const kurz = await client("invalid");
    const invalid = await kurz.v1.createLink({ body: { url: "not a url" } }).catch((e: unknown) => e);
    expect(invalid).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });
    expect((invalid as KurzApiError).details).toMatchObject({
      _errors: [],
      url: { _errors: [expect.any(String)] },
    });
    await kurz.v1.createLink({ body: { url: "https://example.com", custom_alias: "sdk-taken" } });
    const taken = await kurz.v1
      .createLink({ body: { url: "https://example.com", custom_alias: "sdk-taken" } })
      .catch((e: unknown) => e);
    expect(taken).toMatchObject({ status: 409, code: "CONFLICT" });
    const stranger = createKurzClient({
      baseUrl: bed.stack.origin,
      apiKey: "kurz_live_00000000000000000000000000000000",
    });
    await expect(stranger.v1.getAccount()).rejects.toMatchObject({ status: 401, code: "UNAUTHORIZED" });
  });

  it("walks every page of a list and keeps the query", async () => {
    const kurz = await client("pages");
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      made.push(
        (await kurz.v1.createLink({ body: { url: `https://example.com/p${i}`, title: `page ${i}` } })).id,
      );
    }
    await kurz.v1.createLink({ body: { url: "https://example.com/other", title: "other" } });
    const seen: string[] = [];
    for await (const link of kurz.paginate("listLinks", { query: { per_page: 2, search: "page" } }))
      seen.push(link.id);
    expect(seen.sort()).toEqual([...made].sort());
    const first = await kurz.request("listLinks", { query: { per_page: 2 } });
    expect(first.status).toBe(200);
    expect(first.body.meta).toEqual({ page: 1, per_page: 2, total: 6, total_pages: 3 });
  });

  it("uploads a file to import and waits for the job; answers a QR code's bytes", async () => {
    const kurz = await client("import");
    const csv = "url,alias\nhttps://example.com/i1,sdk-imp-1\nnot a url,sdk-imp-2\n";
    const job = await kurz.uploadImport(
      csv,
      { format: "csv", filename: "links.csv" },
      { contentType: "text/csv" },
    );
    expect(job.filename).toBe("links.csv");
    const done = await kurz.waitForImport(job.id, { intervalMs: 100 });
    expect(done).toMatchObject({ status: "completed", counts: { total: 2, created: 1, failed: 1 } });
    const png = await kurz.v1.getQr({ params: { short_code: "sdk-imp-1" } });
    expect(Buffer.from(png.subarray(0, 8)).toString("hex")).toBe("89504e470d0a1a0a");
    const svg = await kurz.v1.getQr({ params: { short_code: "sdk-imp-1" }, query: { format: "svg" } });
    expect(new TextDecoder().decode(svg)).toContain("<svg");
  });
});

describe("the legacy API", () => {
  it("answers whole legacy bodies, pages by nextpage and maps a legacy error to its code", async () => {
    const kurz = await client("legacy");
    const names = ["one", "two", "three"];
    for (const name of names) await kurz.legacy.addCampaign({ body: { name } });
    const listed: string[] = [];
    for await (const campaign of kurz.paginate("legacyListCampaigns", { query: { limit: 2 } })) {
      listed.push(campaign.name);
    }
    expect(listed.sort()).toEqual([...names].sort());
    const missing = await kurz.legacy.deleteCampaign({ params: { id: 999999 } }).catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404, code: "NOT_FOUND", details: undefined });
    expect((missing as KurzApiError).message).not.toBe("");
  });

  it("tries a refused request again after Retry-After, a POST too, then gives up with the 429", async () => {
    const waits: number[] = [];
    const kurz = await client("limited", { attempts: 3, sleep: async (ms) => void waits.push(ms) });
    for (let i = 0; i < LEGACY_LIMIT; i++) await kurz.legacy.getAccount();
    const refused = await kurz.legacy.addCampaign({ body: { name: "late" } }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 429, code: "RATE_LIMIT_EXCEEDED" });
    expect(waits).toHaveLength(2);
    for (const ms of waits) {
      expect(ms).toBeGreaterThan(0);
      expect(ms).toBeLessThanOrEqual(60_000);
      expect(ms % 1000).toBe(0);
    }
  });
});

describe("README examples", () => {
  const examples = readmeExamples();
  it("has examples", () => expect(examples.length).toBeGreaterThanOrEqual(5));

  // Each example is a module of its own, the way a user writes it (`@kurz/sdk` resolves to this
  // package); one program imports them in order (the pagination example reads the links the first
  // ones made), so the SDK and its route records load once.
  it("runs every example", async () => {
    const account = await bed.stack.createAccount(email("readme"));
    const dir = join(import.meta.dirname, "..", ".examples");
    await mkdir(dir, { recursive: true });
    try {
      const files = examples.map((example) => `line-${example.line}.ts`);
      for (const [i, example] of examples.entries()) await writeFile(join(dir, files[i]!), example.code);
      const runner = files
        .map((file) => `console.log("--- ${file}");\nawait import("./${file}");`)
        .join("\n");
      await writeFile(join(dir, "run.ts"), runner);
      const result = await run(process.execPath, ["--import", "tsx", join(dir, "run.ts")], {
        env: { ...process.env, KURZ_HOST: bed.stack.origin, KURZ_API_KEY: account.api_key },
      }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
        throw new Error(`a README example failed after:\n${error.stdout}\n${error.stderr ?? error.message}`);
      });
      // Every example printed something after its marker.
      const outputs = result.stdout.split(/^--- .*$/m).slice(1);
      expect(outputs).toHaveLength(examples.length);
      for (const [i, output] of outputs.entries()) expect(output.trim(), files[i]).not.toBe("");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
