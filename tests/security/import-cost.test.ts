// Attacks on what an import costs the service (docs/import-export.md, docs/security.md): a file of rows
// with passwords into an account at its link limit (every row hashed with argon2, then refused), many
// jobs queued by one account ahead of everyone's, title fetches that no budget charged, and fresh
// subdomains of one site to get around its per-site title budget.
import { startHttpServer, waitFor, withMinuteLeft } from "@kurz/testing";
import { useTestDnsServer } from "@kurz/testing/use-stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, expectV1Error, importCalls, uniqueEmail, useAttackStack } from "./attack.ts";

/** Title fetches per site per minute in this stack (TITLE_FETCH_HOST_PER_MINUTE). */
const SITE_PER_MINUTE = 6;
/** Subdomains of one registrable domain, all answered by the local site. */
const SUBDOMAINS = ["a.victim.test", "b.victim.test", "c.victim.test"];

/** A local site answering `<title>T <path></title>`, counting hits per host name and path. */
async function countingSite(host: string) {
  const hits: string[] = [];
  const site = await startHttpServer((req, res) => {
    hits.push(`${(req.headers.host ?? "").replace(/:\d+$/, "")}${req.url ?? "/"}`);
    res.writeHead(200, { "content-type": "text/html" });
    res.end(`<html><head><title>T ${req.url}</title></head></html>`);
  }, host);
  return {
    url: (path: string, name = host) => `http://${name}:${site.port}${path}`,
    hits,
    close: site.close,
  };
}

let site: Awaited<ReturnType<typeof countingSite>>; // subdomains of victim.test
let keySite: Awaited<ReturnType<typeof countingSite>>; // the key budget's site

beforeAll(async () => {
  [site, keySite] = await Promise.all([countingSite("127.0.0.1"), countingSite("127.0.0.2")]);
});
afterAll(async () => {
  await Promise.all([site?.close(), keySite?.close()]);
});

const dns = useTestDnsServer();
beforeAll(async () => {
  for (const name of SUBDOMAINS) await dns().setAddresses(name, ["127.0.0.1"]);
});
const bed = useAttackStack(
  () => ({
    IMPORT_POLL_MS: "100",
    // The fetcher refuses loopback; these local names stand in for public sites.
    TITLE_FETCH_ALLOW_HOSTS: ["127.0.0.2", ...SUBDOMAINS].join(","),
    TITLE_FETCH_DNS_SERVERS: dns().address,
    TITLE_FETCH_HOST_PER_MINUTE: String(SITE_PER_MINUTE),
  }),
  { inProcess: true },
);

const { upload, completed } = importCalls(bed, 60_000);

const passwordRows = (tag: string, n: number) =>
  `url,password\n${Array.from({ length: n }, (_, i) => `https://example.com/${tag}/${i},secret-${i}-pw`).join("\n")}\n`;

const hashesOf = async (jobId: string) =>
  (await bed.prisma.importJob.findUniqueOrThrow({ where: { id: jobId } })).passwordsHashed;

describe("passwords of refused rows", () => {
  it("are never hashed: only the rows that fit under the link limit cost a hash", async () => {
    const account = await bed.stack.createAccount(uniqueEmail("imp-hash"), 5);
    const first = await upload(account.api_key, passwordRows(`h1-${Date.now()}`, 20));
    expect(first.status, first.text).toBe(202);
    const job = await completed(account.api_key, first.body.data.id);
    expect(job.counts).toMatchObject({ total: 20, created: 5, failed: 15 });
    expect(await hashesOf(job.id)).toBe(5);

    // At its limit: a file of rows with passwords is refused without one hash.
    const second = await upload(account.api_key, passwordRows(`h2-${Date.now()}`, 30));
    const full = await completed(account.api_key, second.body.data.id);
    expect(full.counts).toMatchObject({ total: 30, created: 0, failed: 30 });
    expect(full.errors_preview[0].error).toMatch(/^Link limit reached \(5 links\)\. /);
    expect(await hashesOf(full.id)).toBe(0);
  });
});

describe("jobs per account", () => {
  it("a third job while two are queued or running is refused with 429", async () => {
    const account = await bed.stack.createAccount(uniqueEmail("imp-jobs"));
    // One job held as `./kurz import` holds the job it runs itself: the account's next job waits for it.
    await bed.prisma.importJob.create({
      data: {
        accountId: account.account_id,
        format: "csv",
        contentSha256: "held",
        content: new Uint8Array(Buffer.from("url\nhttps://example.com/held\n")),
        total: 1,
        status: "running",
        leaseUntil: new Date(Date.now() + 120_000),
      },
    });
    const file = (n: number) => `url\nhttps://example.com/jobs/${Date.now()}/${n}\n`;
    const second = await upload(account.api_key, file(2));
    expect(second.status, second.text).toBe(202);
    expect(second.body.data.status).toBe("queued");

    const third = await upload(account.api_key, file(3));
    expectV1Error(third, 429, "RATE_LIMIT_EXCEEDED");
    expect(third.body.error.message).toMatch(/already has 2 imports queued or running/);
    expect(await bed.prisma.importJob.count({ where: { accountId: account.account_id } })).toBe(2);

    // Another account is not held up by this one's jobs.
    const other = await bed.stack.createAccount(uniqueEmail("imp-jobs-other"));
    const theirs = await upload(other.api_key, "url\nhttps://example.com/other\n");
    expect((await completed(other.api_key, theirs.body.data.id)).counts.created).toBe(1);
  });
});

describe("an import's title fetches", () => {
  it("are charged to the uploading key's budget; past it the rows get the host name, unfetched", async () => {
    const account = await bed.stack.createAccount(uniqueEmail("imp-titles"));
    // Before the key's first use, so the gateway caches it with this limit too.
    await bed.prisma.apiKey.updateMany({
      where: { accountId: account.account_id },
      data: { rateLimitPerMinute: 4 },
    });
    await withMinuteLeft(30);
    const paths = Array.from({ length: 9 }, (_, i) => `/k${Date.now()}-${i}`);
    const res = await upload(account.api_key, `url\n${paths.map((p) => keySite.url(p)).join("\n")}\n`, {
      query: "?fetch_titles=true",
    });
    expect(res.status, res.text).toBe(202);
    // Watched in the database: a GET of the job would spend the key's budget too.
    await waitFor(
      async () =>
        (await bed.prisma.importJob.findUniqueOrThrow({ where: { id: res.body.data.id } })).status ===
        "completed",
      { timeoutMs: 60_000, intervalMs: 100, description: "import completed" },
    );
    // The upload was 1 request of 4: three fetches were left.
    expect(keySite.hits.filter((h) => paths.some((p) => h.endsWith(p)))).toHaveLength(3);
    const links = await bed.prisma.link.findMany({ where: { accountId: account.account_id } });
    expect(links.filter((l) => l.title.startsWith("T "))).toHaveLength(3);
    expect(links.filter((l) => l.title === "127.0.0.2")).toHaveLength(6);
    expectV1Error(
      await api(bed.stack, account.api_key)("GET", "/api/v1/account"),
      429,
      "RATE_LIMIT_EXCEEDED",
    );
  });

  it("share one budget across the subdomains of one registrable domain", async () => {
    const account = await bed.stack.createAccount(uniqueEmail("imp-subdomains"));
    await withMinuteLeft(30);
    const urls = SUBDOMAINS.flatMap((name) => [1, 2, 3].map((i) => site.url(`/s${i}`, name)));
    const res = await api(bed.stack, account.api_key)("POST", "/api/v1/links/bulk", {
      links: urls.map((url) => ({ url })),
    });
    expect(res.status, res.text).toBe(201);
    expect(site.hits).toHaveLength(SITE_PER_MINUTE);
    const titles: string[] = res.body.data.success.map((l: { title: string }) => l.title);
    expect(titles.filter((t) => t.startsWith("T "))).toHaveLength(SITE_PER_MINUTE);
    expect(titles.filter((t) => t.endsWith(".victim.test"))).toHaveLength(urls.length - SITE_PER_MINUTE);
  });
});
