// Imports keep the code a peer made (docs/import-export.md, "Codes"), end to end through the public
// origin: YOURLS' 1- and 2-character keywords and Kutt's `_`, edge-hyphen and 100-character aliases are
// created as they are and redirect, case kept; a code that is one of Kurz's own paths is refused on the
// public host with what to do, kept on a verified branded domain (where the public host's pages stay
// Kurz's), or kept as PREFIX-code with rename_reserved and listed on the job; a re-import creates
// nothing twice.
import { printProcessOutputOnFailure, startTestDnsServer, type TestDnsServer } from "@kurz/testing";
import { type Stack, startStack } from "@kurz/testing/stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, bearer, importCalls, RELAXED_LIMITS, raw, uniqueEmail } from "../security/attack.ts";

printProcessOutputOnFailure();

const unique = `${process.pid}${Date.now().toString(36)}`;
let stack: Stack;
let dns: TestDnsServer;
let apiKey: string;

beforeAll(async () => {
  dns = await startTestDnsServer();
  stack = await startStack({
    inProcess: true,
    extraEnv: { ...RELAXED_LIMITS, DNS_SERVERS: dns.address, IMPORT_POLL_MS: "100" },
  });
  apiKey = (await stack.createAccount(uniqueEmail("import-codes"))).api_key;
});
afterAll(async () => {
  await stack?.stop();
  await dns?.stop();
});

const call = (method: string, path: string, body?: unknown) => api(stack, apiKey)(method, path, body);
const imports = importCalls(
  {
    get stack() {
      return stack;
    },
  },
  30_000,
);
/** Uploads the file and waits for its job to end. */
const imported = (file: string, query = "", type = "text/csv") =>
  imports.imported(apiKey, file, { query, type });

const refusedRows = async (id: string) =>
  (await call("GET", `/api/v1/imports/${id}/errors`)).text.trim().split("\r\n").slice(1);

const follow = (path: string, host?: string) =>
  raw(stack.origin, "GET", path, host === undefined ? {} : { headers: { host } });

async function expectRedirect(code: string, url: string, host?: string) {
  const res = await follow(`/${code}`, host);
  expect({ code, status: res.status, location: res.headers.location }).toEqual({
    code,
    status: 302,
    location: url,
  });
}

// Codes are one namespace across the service: this run's own, with the shapes each peer makes.
const long = `L${unique}`.padEnd(100, "x");
const yourlsCodes = ["1", "a", "X", "10", "zZ", "Zz"];
const kuttCodes = ["release_notes", "-beta", "beta-", "_x_", long];

describe("codes as YOURLS and Kutt made them", () => {
  it("creates each one as it is and redirects it, case kept; Kurz's own paths are refused with what to do", async () => {
    const yourls = [
      "keyword,url,title,timestamp,ip,clicks",
      ...yourlsCodes.map((k) => `${k},https://yourls.example/${k},,2024-02-03 04:05:06,127.0.0.1,0`),
      "docs,https://yourls.example/docs,,2024-02-03 04:05:06,127.0.0.1,0",
      "c,https://yourls.example/c,,2024-02-03 04:05:06,127.0.0.1,0",
    ].join("\n");
    const job = await imported(yourls);
    expect(job.format).toBe("yourls");
    expect(job.counts).toMatchObject({ total: 8, created: 6, skipped: 0, failed: 2 });
    const refused = await refusedRows(job.id);
    expect(refused).toHaveLength(2);
    expect(refused[0]).toMatch(/^7,docs,https:\/\/yourls.example\/docs,.*one of Kurz's own paths/);
    expect(refused[0]).toContain("domain=HOST");
    expect(refused[0]).toContain("rename_reserved=PREFIX");
    expect(refused[1]).toMatch(/^8,c,/);

    const kutt = {
      data: kuttCodes.map((address) => ({
        address,
        target: `https://kutt.example/${address}`,
        description: null,
        password: false,
        domain: null,
      })),
    };
    const kuttJob = await imported(JSON.stringify(kutt), "", "application/json");
    expect(kuttJob.format).toBe("kutt");
    expect(kuttJob.counts).toMatchObject({ total: 5, created: 5, failed: 0 });

    for (const code of yourlsCodes) await expectRedirect(code, `https://yourls.example/${code}`);
    for (const code of kuttCodes) await expectRedirect(code, `https://kutt.example/${code}`);
    // The QR code of any of them, as of any link.
    for (const code of ["a", "release_notes", "-beta", long]) {
      const qr = await call("GET", `/api/v1/qr/${code}?format=svg`);
      expect({ code, status: qr.status }).toEqual({ code, status: 200 });
    }
    // Case is significant: `x` is not `X`, and each of `zZ` and `Zz` is its own link.
    expect((await follow("/x")).status).toBe(404);
    // The public host's own pages are untouched.
    expect((await follow("/docs")).status).toBe(200);
    expect((await follow("/docs")).text).not.toContain("yourls.example");

    // The API's alias rule stays as documented: what an import keeps, a create refuses.
    for (const custom_alias of ["ab", "a_b", "-beta2"]) {
      const res = await call("POST", "/api/v1/links", { url: "https://example.com/", custom_alias });
      expect(res.status, custom_alias).toBe(400);
    }

    // A re-import creates nothing twice.
    const again = await imported(yourls);
    expect(again.counts).toMatchObject({ total: 8, created: 0, skipped: 6, failed: 2 });
    const kuttAgain = await imported(JSON.stringify(kutt), "", "application/json");
    expect(kuttAgain.counts).toMatchObject({ total: 5, created: 0, skipped: 5, failed: 0 });
  });

  it("keeps Kurz's own paths as PREFIX-code with rename_reserved, and says so on the job", async () => {
    const file = [
      "keyword,url",
      "api,https://renamed.example/api",
      "Dashboard,https://renamed.example/dashboard",
      `kept-${unique},https://renamed.example/kept`,
    ].join("\n");
    const job = await imported(file, "?rename_reserved=old");
    expect(job.rename_reserved).toBe("old");
    expect(job.counts).toMatchObject({ total: 3, created: 3, failed: 0 });
    expect(job.renamed).toBe(2);
    expect(job.renamed_preview).toEqual([
      { row: 1, code: "api", short_code: "old-api" },
      { row: 2, code: "Dashboard", short_code: "old-Dashboard" },
    ]);
    await expectRedirect("old-api", "https://renamed.example/api");
    await expectRedirect("old-Dashboard", "https://renamed.example/dashboard");
    await expectRedirect(`kept-${unique}`, "https://renamed.example/kept");
    // `/api` is still the API.
    expect((await follow("/api/v1/links")).status).toBe(401);

    const again = await imported(file, "?rename_reserved=old");
    expect(again.counts).toMatchObject({ total: 3, created: 0, skipped: 3, failed: 0 });
    expect(again.renamed).toBe(0);
  });

  it("keeps Kurz's own paths on a verified branded domain, where they redirect; the public host keeps its pages", async () => {
    const host = `go.import-${unique}.test`;
    const file = ["keyword,url", "docs,https://brand.example/docs", "login,https://brand.example/login"];
    file.push("s,https://brand.example/s", "q_1,https://brand.example/q_1");
    const csv = file.join("\n");

    const added = await call("POST", "/api/domain/add", { domain: `https://${host}` });
    expect(added.status, added.text).toBe(200);
    // Not verified yet: refused before a job exists.
    const early = await raw(stack.origin, "POST", `/api/v1/imports?domain=${host}`, {
      headers: { ...bearer(apiKey), "content-type": "text/csv" },
      body: csv,
    });
    expect(early.status, early.text).toBe(403);
    await dns.setTxt(added.body.verification.name, [added.body.verification.value]);
    expect((await call("POST", `/api/domain/${added.body.id}/verify`)).body.status).toBe("verified");

    const job = await imported(csv, `?domain=${host}`);
    expect(job.domain).toBe(host);
    expect(job.counts).toMatchObject({ total: 4, created: 4, failed: 0 });
    expect(job.renamed).toBe(0);
    for (const code of ["docs", "login", "s", "q_1"])
      await expectRedirect(code, `https://brand.example/${code}`, host);

    const publicHost = new URL(stack.origin).host;
    // On the public host these are Kurz's: the docs page, the sign-in page; the domain's links are
    // served only on their domain.
    const docs = await follow("/docs", publicHost);
    expect(docs.status).toBe(200);
    expect(docs.headers.location).toBeUndefined();
    expect((await follow("/login", publicHost)).headers.location).toBeUndefined();
    expect((await follow("/s", publicHost)).status).toBe(404);
    expect((await follow("/q_1", publicHost)).status).toBe(404);

    const links = await call("GET", `/api/v1/links?domain=${host}&per_page=10`);
    expect(links.body.data.map((l: { short_url: string }) => l.short_url).sort()).toEqual(
      ["docs", "login", "q_1", "s"].map((c) => `https://${host}/${c}`),
    );
    const again = await imported(csv, `?domain=${host}`);
    expect(again.counts).toMatchObject({ total: 4, created: 0, skipped: 4, failed: 0 });
  });
});
