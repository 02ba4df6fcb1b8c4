// Attacks on management's resources through the public origin (docs/security.md, "Links, titles, QR
// and keys"): cached QR images, titles of password links on public campaign pages, bulk title fetches
// as a way around the rate budget or as an amplifier against one site, taking over a deleted code,
// and the account answers that must be current and well-formed.
import { startHttpServer, withMinuteLeft } from "@kurz/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, attackerAndVictim, expectV1Error, raw, uniqueEmail, useAttackStack } from "./attack.ts";

/** Per-host title fetches per minute in this stack (TITLE_FETCH_HOST_PER_MINUTE); above the 9 of siteA. */
const HOST_PER_MINUTE = 10;
/** The low per-minute budget given to the key that attacks the budget. */
const KEY_PER_MINUTE = 10;

/** A local site that answers `<title>T <path></title>` slowly, counting hits per path and overlap. */
async function countingSite(host: string) {
  const hits = new Map<string, number>();
  let inFlight = 0;
  let maxInFlight = 0;
  const site = await startHttpServer((req, res) => {
    const path = req.url ?? "/";
    hits.set(path, (hits.get(path) ?? 0) + 1);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    // Slow on purpose, so that fetches the service runs at once overlap here.
    setTimeout(() => {
      inFlight--;
      res.writeHead(200, { "content-type": "text/html" });
      res.end(`<html><head><title>T ${path}</title></head></html>`);
    }, 100);
  }, host);
  return {
    url: (path: string) => `${site.origin}${path}`,
    hitsOf: (paths: string[]) => paths.reduce((n, p) => n + (hits.get(p) ?? 0), 0),
    get maxInFlight() {
      return maxInFlight;
    },
    resetOverlap: () => {
      maxInFlight = 0;
    },
    close: site.close,
  };
}

let siteA: Awaited<ReturnType<typeof countingSite>>; // for the key budget
let siteB: Awaited<ReturnType<typeof countingSite>>; // for the per-host cap (another host name)

beforeAll(async () => {
  [siteA, siteB] = await Promise.all([countingSite("127.0.0.1"), countingSite("127.0.0.2")]);
});
afterAll(async () => {
  await Promise.all([siteA?.close(), siteB?.close()]);
});

const bed = useAttackStack(
  {
    // The title fetcher refuses loopback; these two local sites stand in for public ones.
    TITLE_FETCH_ALLOW_HOSTS: "127.0.0.1,127.0.0.2",
    TITLE_FETCH_HOST_PER_MINUTE: String(HOST_PER_MINUTE),
  },
  { inProcess: true },
);

describe("QR images (item 10)", () => {
  it("are cacheable only by the client that asked, never by a shared cache", async () => {
    const { asVictim, asAttacker } = await attackerAndVictim(bed.stack, "qr");
    const link = (await asVictim("POST", "/api/v1/links", { url: "https://example.com/qr", title: "QR" }))
      .body.data;
    const res = await asVictim("GET", `/api/v1/qr/${link.short_code}?format=svg`);
    expect(res.status).toBe(200);
    expect(res.headers["cache-control"]).toBe("private, max-age=86400");
    // Another account's code stays an unknown one, and nothing of it is cached.
    const foreign = await asAttacker("GET", `/api/v1/qr/${link.short_code}?format=svg`);
    expectV1Error(foreign, 404, "NOT_FOUND");
    expect(String(foreign.headers["cache-control"] ?? "")).not.toMatch(/max-age=86400/);
  });
});

describe("public campaign pages (item 10)", () => {
  it("never list a password-protected link: no title, no code, no destination", async () => {
    const { victim, asVictim } = await attackerAndVictim(bed.stack, "campaign");
    const open = (
      await asVictim("POST", "/api/v1/links", { url: "https://example.com/open", title: "Spring catalogue" })
    ).body.data;
    const locked = (
      await asVictim("POST", "/api/v1/links", {
        url: "https://example.com/board-minutes-2027",
        title: "Merger plan with Acme (confidential)",
        password: "correct horse battery",
      })
    ).body.data;
    const campaign = (await asVictim("POST", "/api/campaign/add", { name: "Spring", public: true })).body;
    expect(campaign.error).toBe(0);
    for (const link of [open, locked]) {
      const assigned = await asVictim("POST", `/api/campaign/${campaign.id}/assign/${link.id}`);
      expect(assigned.body.error, assigned.text).toBe(0);
    }
    const page = await raw(bed.stack.origin, "GET", new URL(campaign.list).pathname);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Spring catalogue");
    expect(page.text).toContain(open.short_code);
    expect(page.text).not.toContain("Merger plan");
    expect(page.text).not.toContain(locked.short_code);
    expect(page.text).not.toContain("board-minutes");
    // The link itself is untouched: still protected, still in the campaign.
    const stored = await bed.prisma.link.findUniqueOrThrow({ where: { id: locked.id } });
    expect(stored.passwordHash).not.toBeNull();
    expect(stored.accountId).toBe(victim.account_id);
    expect(await bed.prisma.campaignLink.count({ where: { campaignId: campaign.id } })).toBe(2);
  });
});

describe("bulk title fetches (item 11)", () => {
  it("count against the key's per-minute budget; past it the titles fall back without a fetch", async () => {
    const account = await bed.stack.createAccount(uniqueEmail("budget"));
    // Before the key's first use, so the gateway caches it with this limit.
    await bed.prisma.apiKey.updateMany({
      where: { accountId: account.account_id },
      data: { rateLimitPerMinute: KEY_PER_MINUTE },
    });
    const call = api(bed.stack, account.api_key);
    await withMinuteLeft(15);

    const first = ["/b1", "/b2", "/b3", "/b4"];
    const res1 = await call("POST", "/api/v1/links/bulk", {
      links: first.map((p) => ({ url: siteA.url(p) })),
    });
    expect(res1.status, res1.text).toBe(201);
    expect(res1.body.data.success.map((l: { title: string }) => l.title)).toEqual(first.map((p) => `T ${p}`));
    expect(siteA.hitsOf(first)).toBe(4);
    // The request itself was 1 of 10; its four fetches cost four in all, so the next request is the 6th.
    expect(res1.headers["x-ratelimit-remaining"]).toBe(String(KEY_PER_MINUTE - 1));
    const probe = await call("GET", "/api/v1/account");
    expect(probe.status).toBe(200);
    expect(probe.headers["x-ratelimit-remaining"]).toBe(String(KEY_PER_MINUTE - 4 - 1));

    // 5 requests left: this bulk is one and may fetch 5 titles (its own and 4 charged); 3 fall back.
    const second = ["/c1", "/c2", "/c3", "/c4", "/c5", "/c6", "/c7", "/c8"];
    const res2 = await call("POST", "/api/v1/links/bulk", {
      links: second.map((p) => ({ url: siteA.url(p) })),
    });
    expect(res2.status, res2.text).toBe(201);
    expect(res2.body.data.failed).toEqual([]);
    expect(res2.body.data.success.map((l: { title: string }) => l.title)).toEqual([
      ...second.slice(0, 5).map((p) => `T ${p}`),
      "127.0.0.1",
      "127.0.0.1",
      "127.0.0.1",
    ]);
    expect(siteA.hitsOf(second.slice(0, 5))).toBe(5);
    expect(siteA.hitsOf(second.slice(5))).toBe(0);
    // The budget is spent exactly: the next request is refused.
    const over = await call("GET", "/api/v1/account");
    expectV1Error(over, 429, "RATE_LIMIT_EXCEEDED");
    expect(over.body.error.details).toMatchObject({ limit: KEY_PER_MINUTE, window: "1m" });
    expect(await bed.prisma.link.count({ where: { accountId: account.account_id } })).toBe(12);
  });

  it("fetch one host a few at a time and a bounded number per minute, whoever asks", async () => {
    const { asAttacker, asVictim } = await attackerAndVictim(bed.stack, "hostcap");
    await withMinuteLeft(15);
    siteB.resetOverlap();
    const paths = Array.from({ length: HOST_PER_MINUTE + 4 }, (_, i) => `/h${i}`);
    const res = await asAttacker("POST", "/api/v1/links/bulk", {
      links: paths.map((p) => ({ url: siteB.url(p) })),
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.success).toHaveLength(paths.length);
    const titles = res.body.data.success.map((l: { title: string }) => l.title);
    expect(titles.filter((t: string) => t !== "127.0.0.2")).toHaveLength(HOST_PER_MINUTE);
    expect(siteB.hitsOf(paths)).toBe(HOST_PER_MINUTE);
    expect(siteB.maxInFlight).toBeGreaterThan(1);
    expect(siteB.maxInFlight).toBeLessThanOrEqual(4);
    // The host's budget is shared: another account's link to it gets the host name, with no fetch.
    const late = await asVictim("POST", "/api/v1/links", { url: siteB.url("/late") });
    expect(late.status, late.text).toBe(201);
    expect(late.body.data.title).toBe("127.0.0.2");
    expect(siteB.hitsOf(["/late"])).toBe(0);
  });
});

describe("deleted short codes (item 12)", () => {
  const alias = (tag: string) => `${tag}-${Date.now().toString(36)}-${process.pid}`;
  /** `as` links `url` under the code `code`. */
  const linkUnder = (as: ReturnType<typeof api>, code: string, url: string, title: string) =>
    as("POST", "/api/v1/links", { url, custom_alias: code, title });

  it("stay reserved to their former owner: another account gets the taken-alias answer", async () => {
    const { attacker, victim, asAttacker, asVictim } = await attackerAndVictim(bed.stack, "retired");
    const code = alias("printed");
    const live = alias("live");
    const link = (await linkUnder(asVictim, code, "https://victim.example/menu", "Menu")).body.data;
    await linkUnder(asVictim, live, "https://victim.example/live", "L");
    expect((await asVictim("DELETE", `/api/v1/links/${link.id}`)).status).toBe(200);

    const takeover = await linkUnder(asAttacker, code, "https://attacker.example/phish", "x");
    expectV1Error(takeover, 409, "CONFLICT");
    // Exactly what a live alias answers: nothing tells a deleted code apart.
    const taken = await linkUnder(asAttacker, live, "https://attacker.example/phish", "x");
    expectV1Error(taken, 409, "CONFLICT");
    expect(takeover.body.error.message).toBe(taken.body.error.message.replace(live, code));
    expect([takeover.body.error.details, taken.body.error.details]).toEqual([
      { custom_alias: code },
      { custom_alias: live },
    ]);

    const bulk = await asAttacker("POST", "/api/v1/links/bulk", {
      links: [{ url: "https://attacker.example/phish", custom_alias: code, title: "x" }],
    });
    expect(bulk.status).toBe(201);
    expect(bulk.body.data).toEqual({
      success: [],
      // The bulk wording of a taken alias (docs/api.md, "Bulk"), the same as for a live one.
      failed: [{ index: 0, error: "Alias already taken" }],
    });

    // Nothing changed: no link under the code, the reservation still the victim's, the short URL 404.
    expect(await bed.prisma.link.count({ where: { shortCode: code } })).toBe(0);
    expect(await bed.prisma.link.count({ where: { accountId: attacker.account_id } })).toBe(0);
    const retired = await bed.prisma.retiredCode.findUniqueOrThrow({ where: { shortCode: code } });
    expect(retired).toMatchObject({ accountId: victim.account_id, linkId: link.id });
    expect((await raw(bed.stack.origin, "GET", `/${code}`)).status).toBe(404);

    // The owner takes it back at once.
    const back = await linkUnder(asVictim, code, "https://victim.example/menu-2", "Menu");
    expect(back.status, back.text).toBe(201);
    // The row stays, still naming the deleted link (analytics leaves its clicks out until it applied the delete).
    expect(await bed.prisma.retiredCode.findUniqueOrThrow({ where: { shortCode: code } })).toMatchObject({
      accountId: victim.account_id,
      linkId: link.id,
    });
    const visit = await raw(bed.stack.origin, "GET", `/${code}`, {
      headers: { "user-agent": "Mozilla/5.0" },
    });
    expect(visit.status).toBe(302);
    expect(visit.headers.location).toBe("https://victim.example/menu-2");
  });

  it("cannot be won by racing the owner's delete", async () => {
    const { attacker, asAttacker, asVictim } = await attackerAndVictim(bed.stack, "retired-race");
    for (let round = 0; round < 5; round++) {
      const code = alias(`race${round}`);
      const link = (await linkUnder(asVictim, code, "https://victim.example/r", "R")).body.data;
      const [deleted, ...tries] = await Promise.all([
        asVictim("DELETE", `/api/v1/links/${link.id}`),
        ...Array.from({ length: 3 }, () =>
          asAttacker("POST", "/api/v1/links", {
            url: "https://attacker.example/r",
            custom_alias: code,
            title: "x",
          }),
        ),
      ]);
      expect(deleted!.status).toBe(200);
      for (const t of tries) expectV1Error(t, 409, "CONFLICT");
    }
    expect(await bed.prisma.link.count({ where: { accountId: attacker.account_id } })).toBe(0);
  });

  it("are free for anyone once the grace period is over", async () => {
    const { attacker, asAttacker, asVictim } = await attackerAndVictim(bed.stack, "retired-grace");
    const code = alias("old");
    const link = (await linkUnder(asVictim, code, "https://victim.example/old", "O")).body.data;
    await asVictim("DELETE", `/api/v1/links/${link.id}`);
    // 30 days (RETIRED_CODE_DAYS' default) and a minute ago.
    await bed.prisma.retiredCode.update({
      where: { shortCode: code },
      data: { retiredAt: new Date(Date.now() - 30 * 86_400_000 - 60_000) },
    });
    const mine = await linkUnder(asAttacker, code, "https://attacker.example/new", "N");
    expect(mine.status, mine.text).toBe(201);
    expect(mine.body.data.short_code).toBe(code);
    expect((await bed.prisma.link.findUniqueOrThrow({ where: { shortCode: code } })).accountId).toBe(
      attacker.account_id,
    );
  });
});

describe("account answers (items 14, 15)", () => {
  it("usage shows the key making the request as used now, on its very first request", async () => {
    const account = await bed.stack.createAccount(uniqueEmail("usage"));
    const before = Date.now();
    const res = await api(bed.stack, account.api_key)("GET", "/api/v1/account/usage");
    expect(res.status, res.text).toBe(200);
    const current = res.body.data.keys.find((k: { id: string }) => k.id === res.body.data.current_key.id);
    expect(current.last_used_at).not.toBeNull();
    expect(Date.parse(current.last_used_at)).toBeGreaterThanOrEqual(before - 1_000);
    expect(Date.parse(current.last_used_at)).toBeLessThanOrEqual(Date.now() + 1_000);
  });

  it("legacy account always answers expires as a YYYY-MM-DD HH:MM:SS string", async () => {
    const account = await bed.stack.createAccount(uniqueEmail("legacy-expires"));
    const call = api(bed.stack, account.api_key);
    const free = await call("GET", "/api/account");
    expect(free.status, free.text).toBe(200);
    expect(free.body.data.expires).toBe("9999-12-31 23:59:59");
    await bed.prisma.account.update({
      where: { id: account.account_id },
      data: { plan: "pro", planExpiresAt: new Date("2027-05-06T07:08:09.500Z") },
    });
    const pro = await call("GET", "/api/account");
    expect(pro.body.data).toMatchObject({ status: "pro", expires: "2027-05-06 07:08:09" });
  });
});

describe("link limits (decision 0037)", () => {
  it("are per account: one account's creates and deletes neither spend nor free another's quota", async () => {
    const [attacker, victim] = await Promise.all([
      bed.stack.createAccount(uniqueEmail("quota-attacker"), 4),
      bed.stack.createAccount(uniqueEmail("quota-victim"), 4),
    ]);
    const asAttacker = api(bed.stack, attacker.api_key);
    const asVictim = api(bed.stack, victim.api_key);
    const link = (tag: string, i: number) => ({ url: `https://${tag}.example/${i}`, title: `${tag} ${i}` });
    // The attacker floods creates (single and bulk) while the victim creates up to its own limit.
    const [flood, bulk, own] = await Promise.all([
      Promise.all(Array.from({ length: 16 }, (_, i) => asAttacker("POST", "/api/v1/links", link("a", i)))),
      asAttacker("POST", "/api/v1/links/bulk", { links: Array.from({ length: 8 }, (_, i) => link("b", i)) }),
      Promise.all(Array.from({ length: 4 }, (_, i) => asVictim("POST", "/api/v1/links", link("v", i)))),
    ]);
    expect(own.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    // A bulk request that finds no room at all is refused whole (403); otherwise it reports per item.
    if (bulk.status !== 201) expectV1Error(bulk, 403, "FORBIDDEN");
    const bulkCreated = bulk.status === 201 ? bulk.body.data.success.length : 0;
    const attackerCreated = flood.filter((r) => r.status === 201).length + bulkCreated;
    expect(attackerCreated).toBe(4);
    for (const r of flood.filter((r) => r.status !== 201)) expectV1Error(r, 403, "FORBIDDEN");

    // Deleting the victim's links by id (single and bulk) removes and uncounts nothing of theirs.
    const victimIds = own.map((r) => r.body.data.id as string);
    expectV1Error(await asAttacker("DELETE", `/api/v1/links/${victimIds[0]}`), 404, "NOT_FOUND");
    expect((await asAttacker("DELETE", "/api/v1/links/bulk", { ids: victimIds })).body.data.deleted).toBe(0);
    // The attacker's own deletes free the attacker's room, not the victim's.
    const mine = (await asAttacker("GET", "/api/v1/links")).body.data.map((l: { id: string }) => l.id);
    expect((await asAttacker("DELETE", "/api/v1/links/bulk", { ids: mine })).body.data.deleted).toBe(4);
    expectV1Error(await asVictim("POST", "/api/v1/links", link("v", 9)), 403, "FORBIDDEN");
    const account = (await asVictim("GET", "/api/v1/account")).body.data;
    expect(account.total_links).toBe(4);
    expect((await asVictim("GET", "/api/v1/links")).body.meta.total).toBe(4);
    expect((await asAttacker("GET", "/api/v1/account")).body.data.total_links).toBe(0);
  });
});

describe("calls batched together (decision 0044)", () => {
  it("are each done or refused on their own: one account's refused creates never refuse another's", async () => {
    const [attacker, victim] = await Promise.all([
      bed.stack.createAccount(uniqueEmail("batch-attacker"), 2),
      bed.stack.createAccount(uniqueEmail("batch-victim"), 50),
    ]);
    const asAttacker = api(bed.stack, attacker.api_key);
    const asVictim = api(bed.stack, victim.api_key);
    const taken = `batch-taken-${Date.now().toString(36)}`;
    expect(
      (await asAttacker("POST", "/api/v1/links", { url: "https://a.example/", custom_alias: taken })).status,
    ).toBe(201);
    const link = (tag: string, i: number, alias?: string) => ({
      url: `https://${tag}.example/${i}`,
      title: `${tag} ${i}`,
      ...(alias ? { custom_alias: alias } : {}),
    });
    // The management process batches the creates that arrive together, so these share calls: the
    // attacker's past its limit and with a taken alias, the victim's each with an alias of its own.
    const victimAliases = Array.from({ length: 16 }, (_, i) => `batch-v-${Date.now().toString(36)}-${i}`);
    const [flood, taking, own] = await Promise.all([
      Promise.all(Array.from({ length: 16 }, (_, i) => asAttacker("POST", "/api/v1/links", link("a", i)))),
      Promise.all(
        Array.from({ length: 8 }, (_, i) => asAttacker("POST", "/api/v1/links", link("t", i, taken))),
      ),
      Promise.all(victimAliases.map((alias, i) => asVictim("POST", "/api/v1/links", link("v", i, alias)))),
    ]);
    expect(own.map((r) => r.status)).toEqual(victimAliases.map(() => 201));
    expect(own.map((r) => r.body.data.short_code)).toEqual(victimAliases);
    // The taken alias is never granted: 409, or 403 when the flood used the last room first.
    for (const r of taking) {
      if (r.status === 403) expectV1Error(r, 403, "FORBIDDEN");
      else expectV1Error(r, 409, "CONFLICT");
    }
    // One link of room was left: exactly one of the flood got it.
    expect(flood.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of flood.filter((r) => r.status !== 201)) expectV1Error(r, 403, "FORBIDDEN");
    expect((await asVictim("GET", "/api/v1/account")).body.data.total_links).toBe(16);
    expect((await asAttacker("GET", "/api/v1/account")).body.data.total_links).toBe(2);
  });

  it("reads by id answer each caller only with its own link; malformed ids are refused before any read", async () => {
    const { asAttacker, asVictim } = await attackerAndVictim(bed.stack, "batch-read");
    const own = (await asVictim("POST", "/api/v1/links", { url: "https://victim.example/", title: "V" })).body
      .data.id as string;
    const mine = (await asAttacker("POST", "/api/v1/links", { url: "https://attacker.example/", title: "A" }))
      .body.data.id as string;
    // Sent at once, so management reads them in shared statements: the victim's id asked by the
    // attacker beside the victim's and the attacker's own reads, and ids that are no UUID at all.
    const [theirs, victims, attackers, malformed] = await Promise.all([
      Promise.all(Array.from({ length: 12 }, () => asAttacker("GET", `/api/v1/links/${own}`))),
      Promise.all(Array.from({ length: 12 }, () => asVictim("GET", `/api/v1/links/${own}`))),
      Promise.all(Array.from({ length: 12 }, () => asAttacker("GET", `/api/v1/links/${mine}`))),
      Promise.all(
        [`${own}'--`, `${own.slice(0, -1)}g`, "00000000-0000-0000-0000-00000000000"].map((id) =>
          asAttacker("GET", `/api/v1/links/${encodeURIComponent(id)}`),
        ),
      ),
    ]);
    for (const r of theirs) expectV1Error(r, 404, "NOT_FOUND");
    for (const r of victims) expect([r.status, r.body.data.title]).toEqual([200, "V"]);
    for (const r of attackers) expect([r.status, r.body.data.title]).toEqual([200, "A"]);
    // Refused before any read (so no batch can fail for them), in the v1 envelope.
    for (const r of malformed) expectV1Error(r, 400, "VALIDATION_ERROR");
  });
});

describe("invalidation messages naming several codes (decision 0052)", () => {
  it("cannot be forged through an alias: a code with a space or a colon is refused and nothing is created", async () => {
    const { asAttacker } = await attackerAndVictim(bed.stack, "inval");
    const before = (await asAttacker("GET", "/api/v1/account")).body.data.total_links;
    // One code that would read as two entries of a message (or as a domain's), so one create could
    // drop another account's cached codes or a branded domain from every redirect.
    const forged = ["own victim1", "own%20victim1", "domain:brand.example", "own\tvictim1"];
    for (const alias of forged) {
      expectV1Error(
        await asAttacker("POST", "/api/v1/links", { url: "https://a.example/", custom_alias: alias }),
        400,
        "VALIDATION_ERROR",
      );
    }
    const bulk = await asAttacker("POST", "/api/v1/links/bulk", {
      links: forged.map((alias) => ({ url: "https://a.example/", custom_alias: alias })),
    });
    // Bulk answers per item: every item refused, none created.
    expect(bulk.status, bulk.text).toBe(201);
    expect(bulk.body.data.success).toEqual([]);
    expect(bulk.body.data.failed.map((f: { index: number }) => f.index)).toEqual([0, 1, 2, 3]);
    expect((await asAttacker("GET", "/api/v1/account")).body.data.total_links).toBe(before);
  });
});
