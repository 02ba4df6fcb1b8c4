// Older API: branded domains (list, add, verify, update, delete) with proof of control through a DNS
// TXT record served by a real DNS server on loopback, their Redis records for the redirect service
// (written only while verified), the internal resolve endpoint, list pagination, and tenant isolation.
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  DomainRecord,
  domainKey,
  isRecordTombstone,
  LegacyDomain,
  LegacyDomainAddResponse,
  LegacyDomainDeleteResponse,
  redirectKey,
  rotatorKey,
} from "@kurz/contracts";
import { internalHeaders } from "@kurz/service-kit";
import { waitFor } from "@kurz/testing";
import { useTestDnsServer } from "@kurz/testing/use-stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UNVERIFIED_CLAIM_HOLD_MS } from "../src/domains/domain-verification.ts";
import { DomainAndRotatorRecords } from "../src/projections/domain-and-rotator-records.ts";
import {
  type Caller,
  expectEmptyLegacyPage,
  expectLegacyError,
  expectLegacyList,
  expectLegacyMessage,
  getWithHost,
  LEGACY_DATE,
  uniqueEmail,
  useLegacyTenants,
} from "./legacy-helpers.ts";
import { v1Caller } from "./links-helpers.ts";
import { FAST_WEBHOOKS_ENV, type Receiver, startReceiver } from "./webhooks-helpers.ts";

let seq = 0;
/** Hosts are unique across the service, and tests in other files may share a Redis. */
const uniqueHost = () => `go-${process.pid}-${Date.now().toString(36)}-${++seq}.example.test`;

describe("legacy branded domains", () => {
  const dns = useTestDnsServer();
  const { bed, call, other, owner, newCaller } = useLegacyTenants("dom", () => ({
    ...FAST_WEBHOOKS_ENV,
    DNS_SERVERS: dns().address,
  }));
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });

  const record = async (host: string) => {
    const json = await bed.redis.get(domainKey(host));
    // A removed domain's tombstone (decision 0052) is no domain, as the redirect reads it.
    return json === null || isRecordTombstone(JSON.parse(json)) ? null : DomainRecord.parse(JSON.parse(json));
  };
  const listed = async (caller: Caller, id: number) =>
    expectLegacyList(await caller("GET", "/domains?limit=100"), "domains").domains.find(
      (d: { id: number }) => d.id === id,
    );
  const resolveInternal = (host: string) =>
    fetch(`${bed.stack.urls.management}/internal/domains/resolve/${encodeURIComponent(host)}`, {
      headers: internalHeaders(bed.stack.env.INTERNAL_TOKEN!, "redirect"),
    });

  /** Adds a domain, publishes its TXT record and verifies it. */
  async function addVerified(caller: Caller, body: Record<string, unknown>) {
    const added = await caller("POST", "/domain/add", body);
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    await dns().setTxt(added.body.verification.name, [added.body.verification.value]);
    const verified = await caller("POST", `/domain/${added.body.id}/verify`);
    expect(verified.body.status, JSON.stringify(verified.body)).toBe("verified");
    return added.body as { id: number; verification: { name: string; value: string } };
  }

  it("adds a domain pending, with the record to publish, and writes no redirect record", async () => {
    const host = uniqueHost();
    const added = await call("POST", "/domain/add", {
      domain: `https://${host}`,
      redirectroot: "https://example.com/home",
      redirect404: "https://example.com/404",
    });
    expect(added.status).toBe(200);
    expect(LegacyDomainAddResponse.strict().parse(added.body)).toEqual({
      error: 0,
      id: expect.any(Number),
      status: "pending",
      verified_at: null,
      last_checked_at: null,
      verification: { type: "TXT", name: `_kurz-verify.${host}`, value: expect.any(String) },
    });
    expect(added.body.verification.value).toMatch(/^kurz-verify=[0-9a-f]{32}$/);

    const list = expectLegacyList(await call("GET", "/domains"), "domains");
    expect(LegacyDomain.strict().parse(list.domains[0])).toEqual({
      id: added.body.id,
      domain: `https://${host}`,
      redirectroot: "https://example.com/home",
      redirect404: "https://example.com/404",
      status: "pending",
      verified_at: null,
      last_checked_at: null,
      verification: added.body.verification,
      links: 0,
    });
    expect(await record(host)).toBeNull();
    expect((await resolveInternal(host)).status).toBe(404);
  });

  it("gives every domain its own random token", async () => {
    const values = new Set<string>();
    for (let i = 0; i < 3; i++) {
      values.add(
        (await call("POST", "/domain/add", { domain: `https://${uniqueHost()}` })).body.verification.value,
      );
    }
    expect(values.size).toBe(3);
  });

  it("verifies a domain once its TXT record is published, and then writes the redirect record", async () => {
    const host = uniqueHost();
    const { body } = await call("POST", "/domain/add", {
      domain: `https://${host}`,
      redirect404: "https://example.com/404",
    });

    // Nothing published yet: the check fails, and the domain still serves nothing.
    const early = await call("POST", `/domain/${body.id}/verify`);
    expect(early.status).toBe(200);
    expect(early.body).toMatchObject({ error: 0, id: body.id, status: "failed", verified_at: null });
    expect(early.body.last_checked_at).toMatch(LEGACY_DATE);
    expect(await record(host)).toBeNull();

    await dns().setTxt(body.verification.name, ["v=spf1 -all", body.verification.value]);
    const ok = await call("POST", `/domain/${body.id}/verify`);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ error: 0, id: body.id, status: "verified", message: /verified/ });
    expect(ok.body.verified_at).toMatch(LEGACY_DATE);
    expect(ok.body.last_checked_at).toBe(ok.body.verified_at);
    expect(await listed(call, body.id)).toMatchObject({
      status: "verified",
      verified_at: ok.body.verified_at,
      last_checked_at: ok.body.last_checked_at,
    });
    expect(await record(host)).toEqual({
      id: body.id,
      account_id: expect.any(String),
      redirect_root: null,
      redirect_404: "https://example.com/404",
      https: true,
      v: expect.any(Number), // decision 0052
    });
  });

  it("fails a wrong value, and fails a verified domain whose record was removed", async () => {
    const host = uniqueHost();
    const { body } = await call("POST", "/domain/add", { domain: `https://${host}` });
    await dns().setTxt(body.verification.name, ["kurz-verify=0123456789abcdef0123456789abcdef"]);
    expect((await call("POST", `/domain/${body.id}/verify`)).body.status).toBe("failed");
    expect(await record(host)).toBeNull();

    await dns().setTxt(body.verification.name, [body.verification.value]);
    expect((await call("POST", `/domain/${body.id}/verify`)).body.status).toBe("verified");
    expect(await record(host)).not.toBeNull();

    await dns().removeTxt(body.verification.name);
    const lost = await call("POST", `/domain/${body.id}/verify`);
    expect(lost.body).toMatchObject({ status: "failed", message: /not found/ });
    // The last success is kept for the record; it no longer serves.
    expect(lost.body.verified_at).toMatch(LEGACY_DATE);
    expect(await record(host)).toBeNull();
    expect((await resolveInternal(host)).status).toBe(404);
  });

  it("stores the canonical host: case, trailing dot, default port and IDNA", async () => {
    const host = uniqueHost();
    const added = await call("POST", "/domain/add", { domain: `HTTP://${host.toUpperCase()}.:80/` });
    expect(added.status).toBe(200);
    expect(added.body.verification.name).toBe(`_kurz-verify.${host}`);
    expect(await listed(call, added.body.id)).toMatchObject({
      domain: `http://${host}`,
      redirectroot: null,
      redirect404: null,
    });

    const label = `bücher-${++seq}-${process.pid}`;
    const idn = await call("POST", "/domain/add", { domain: `https://${label.toUpperCase()}.example.test` });
    expect(idn.status).toBe(200);
    const ascii = new URL(`https://${label}.example.test`).host;
    expect(ascii).toMatch(/^xn--/);
    expect(idn.body.verification.name).toBe(`_kurz-verify.${ascii}`);
    expect((await listed(call, idn.body.id)).domain).toBe(`https://${ascii}`);
    // The same name in either form is the same domain.
    expectLegacyError(await call("POST", "/domain/add", { domain: `https://${ascii}` }), 409);
  });

  it("refuses a host the account already has, and one another account verified", async () => {
    const host = uniqueHost();
    await addVerified(call, { domain: `https://${host}` });
    expectLegacyError(
      await call("POST", "/domain/add", { domain: `https://${host}` }),
      409,
      /already in use/,
    );
    expectLegacyError(await other("POST", "/domain/add", { domain: `http://${host.toUpperCase()}.` }), 409);
    expect((await listed(call, (await record(host))!.id)).status).toBe("verified");
  });

  it("holds a pending claim against others for a while, then lets anyone claim the host afresh", async () => {
    const host = uniqueHost();
    const first = (await call("POST", "/domain/add", { domain: `https://${host}` })).body;
    expectLegacyError(await other("POST", "/domain/add", { domain: `https://${host}` }), 409, /pending/);

    // Still held just inside the hold, even after failed checks.
    await call("POST", `/domain/${first.id}/verify`);
    await bed.prisma.domain.update({
      where: { id: first.id },
      data: { createdAt: new Date(Date.now() - UNVERIFIED_CLAIM_HOLD_MS + 60_000) },
    });
    expectLegacyError(await other("POST", "/domain/add", { domain: `https://${host}` }), 409, /pending/);

    await bed.prisma.domain.update({
      where: { id: first.id },
      data: { createdAt: new Date(Date.now() - UNVERIFIED_CLAIM_HOLD_MS - 60_000) },
    });
    const second = await other("POST", "/domain/add", { domain: `https://${host}` });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body.verification.value).not.toBe(first.verification.value);
    // The abandoned claim is gone for its former owner.
    expectLegacyError(await call("POST", `/domain/${first.id}/verify`), 404);
    expect(await listed(call, first.id)).toBeUndefined();
    // Only the new claimant's token proves control now.
    await dns().setTxt(first.verification.name, [first.verification.value]);
    expect((await other("POST", `/domain/${second.body.id}/verify`)).body.status).toBe("failed");
    await dns().setTxt(second.body.verification.name, [second.body.verification.value]);
    expect((await other("POST", `/domain/${second.body.id}/verify`)).body.status).toBe("verified");
  });

  it("rejects malformed domains, IP addresses, ports, single labels and its own address with 400", async () => {
    const bad = [
      {},
      { domain: "go.example.com" },
      { domain: "ftp://go.example.com" },
      { domain: "https://go.example.com/path" },
      { domain: "https://go.example.com/?q=1" },
      { domain: "https://go.example.com:8443" },
      { domain: "https://127.0.0.1" },
      { domain: "https://[::1]" },
      { domain: "https://2130706433" },
      { domain: "https://localhost" },
      { domain: "https://app.localhost" },
      { domain: "https://intranet" },
      { domain: "https://go_x.example.com" },
      { domain: `https://${uniqueHost()}`, redirectroot: "not a url" },
      { domain: `https://${uniqueHost()}`, redirect404: "javascript:alert(1)" },
      { domain: 42 },
    ];
    for (const body of bad) expectLegacyError(await call("POST", "/domain/add", body), 400);
    expectLegacyError(await call("POST", "/domain/add", "[1,"), 400, /JSON/);
    // The service's own address (an IP here) can never be a branded domain.
    expectLegacyError(await call("POST", "/domain/add", { domain: bed.stack.origin }), 400, /IP address/);
  });

  it("updates and clears redirects; the record follows only while verified", async () => {
    const host = uniqueHost();
    const body = await addVerified(call, {
      domain: `https://${host}`,
      redirectroot: "https://example.com/a",
    });
    expectLegacyMessage(
      await call("PUT", `/domain/${body.id}/update`, { redirect404: "https://example.com/missing" }),
      /updated/,
    );
    expect(await record(host)).toMatchObject({
      redirect_root: "https://example.com/a",
      redirect_404: "https://example.com/missing",
    });
    expectLegacyMessage(await call("PUT", `/domain/${body.id}/update`, { redirectroot: null }));
    expect(await listed(call, body.id)).toMatchObject({
      redirectroot: null,
      redirect404: "https://example.com/missing",
      status: "verified",
    });
    expect(await record(host)).toMatchObject({ redirect_root: null });

    expectLegacyError(await call("PUT", `/domain/${body.id}/update`, {}), 400, /redirectroot/);
    expectLegacyError(await call("PUT", `/domain/${body.id}/update`, { redirectroot: "nope" }), 400);

    // Updating a pending domain changes its settings but publishes nothing.
    const pendingHost = uniqueHost();
    const pending = (await call("POST", "/domain/add", { domain: `https://${pendingHost}` })).body;
    expectLegacyMessage(
      await call("PUT", `/domain/${pending.id}/update`, { redirectroot: "https://example.com/p" }),
    );
    expect((await listed(call, pending.id)).redirectroot).toBe("https://example.com/p");
    expect(await record(pendingHost)).toBeNull();
  });

  it("deletes a domain and its record", async () => {
    const host = uniqueHost();
    const body = await addVerified(call, { domain: `https://${host}` });
    expect(await record(host)).not.toBeNull();
    const deleted = await call("DELETE", `/domain/${body.id}/delete`);
    expect(LegacyDomainDeleteResponse.parse(deleted.body)).toEqual({
      error: 0,
      message: "Domain has been deleted successfully.",
      links_deleted: 0,
    });
    expect(await record(host)).toBeNull();
    expectLegacyError(await call("DELETE", `/domain/${body.id}/delete`), 404, /Domain not found/);
    expectLegacyError(await call("POST", `/domain/${body.id}/verify`), 404, /Domain not found/);
    // The host is free again; the new claim has a new token, so the old TXT record proves nothing.
    const again = await other("POST", "/domain/add", { domain: `https://${host}` });
    expect(again.status).toBe(200);
    expect(again.body.verification.value).not.toBe(body.verification.value);
    expect((await other("POST", `/domain/${again.body.id}/verify`)).body.status).toBe("failed");
    expect(await record(host)).toBeNull();
  });

  it("shows a branded link's short URL on its domain everywhere a short URL appears", async () => {
    const v1 = v1Caller(bed.stack, owner().api_key);
    const host = uniqueHost();
    await addVerified(call, { domain: `https://${host}` });
    const made = await v1("POST", "/links", { url: "https://example.com/su", title: "su", domain: host });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const { id, short_code } = made.body.data as { id: string; short_code: string };
    const url = `https://${host}/${short_code}`;
    expect(made.body.data.short_url).toBe(url);
    expect((await v1("GET", `/links/${id}`)).body.data.short_url).toBe(url);
    const listed = await v1("GET", `/links?domain=${host}`);
    expect(listed.body.data.map((l: { short_url: string }) => l.short_url)).toEqual([url]);
    const bulk = await v1("POST", "/links/bulk", {
      links: [{ url: "https://example.com/b", title: "b", domain: host }],
    });
    expect(bulk.body.data.success[0].short_url).toBe(
      `https://${host}/${bulk.body.data.success[0].short_code}`,
    );

    // The older API's campaign links and the campaign's public page.
    const campaign = await call("POST", "/campaign/add", { name: "Branded", public: true });
    expectLegacyMessage(await call("POST", `/campaign/${campaign.body.id}/assign/${id}`));
    const links = await call("GET", `/campaign/${campaign.body.id}/links`);
    expect(links.body.data.links.map((l: { short_url: string }) => l.short_url)).toEqual([url]);
    const page = await (await fetch(campaign.body.list)).text();
    expect(page).toContain(`href="${url}"`);
    expect(page).not.toContain(`${bed.stack.origin}/${short_code}`);

    // The links export (CSV and JSON) carries it too.
    const exported = await fetch(`${bed.stack.origin}/api/v1/exports/links?format=json`, {
      headers: { authorization: `Bearer ${owner().api_key}` },
    });
    const rows = (await exported.json()) as { id: string; short_url: string }[];
    expect(rows.find((r) => r.id === id)?.short_url).toBe(url);
    const csv = await (
      await fetch(`${bed.stack.origin}/api/v1/exports/links`, {
        headers: { authorization: `Bearer ${owner().api_key}` },
      })
    ).text();
    expect(csv).toContain(`,${url},`);
    expect(csv).not.toContain(`${bed.stack.origin}/${short_code}`);

    // The QR code carries the branded address, the only one that serves the link.
    const qr = await fetch(`${bed.stack.origin}/api/v1/qr/${short_code}`, {
      headers: { authorization: `Bearer ${owner().api_key}` },
    });
    expect(qr.status).toBe(200);
    const dir = await mkdtemp(join(tmpdir(), "kurz-qr-"));
    try {
      await writeFile(join(dir, "qr.png"), Buffer.from(await qr.arrayBuffer()));
      const { stdout } = await promisify(execFile)("zbarimg", ["--quiet", "--raw", join(dir, "qr.png")]);
      expect(stdout.trim()).toBe(url);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("deletes a domain with its links: each leaves as a single delete does, the others stay", async () => {
    const v1 = v1Caller(bed.stack, owner().api_key);
    const hook = await v1("POST", "/webhooks", {
      url: receiver.url,
      events: ["link.deleted", "link.updated"],
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const host = uniqueHost();
    const domain = await addVerified(call, { domain: `https://${host}` });
    const newLink = async (extra: Record<string, unknown>) => {
      const res = await v1("POST", "/links", { url: "https://example.com/d", title: "t", ...extra });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.data as { id: string; short_code: string; short_url: string };
    };
    const branded = [await newLink({ domain: host }), await newLink({ domain: host })];
    const plain = await newLink({});
    expect(branded[0]!.short_url).toBe(`https://${host}/${branded[0]!.short_code}`);
    // A rotator lists one branded and one plain link.
    const slug = `dom-${process.pid}-${++seq}`;
    const campaign = await call("POST", "/campaign/add", { name: "c", slug });
    for (const l of [branded[0]!, plain])
      expectLegacyMessage(await call("POST", `/campaign/${campaign.body.id}/assign/${l.id}`));
    const totalLinks = async () => (await v1("GET", "/account")).body.data.total_links as number;
    const before = await totalLinks();
    expect(await listed(call, domain.id)).toMatchObject({ links: 2 });
    for (const l of branded) expect(await bed.redis.get(redirectKey(l.short_code))).not.toBeNull();

    const deleted = await call("DELETE", `/domain/${domain.id}/delete`);
    expect(LegacyDomainDeleteResponse.parse(deleted.body)).toEqual({
      error: 0,
      message: "Domain and its 2 links have been deleted successfully.",
      links_deleted: 2,
    });

    // Gone from the API, the redirect's records and the count; the plain link is untouched.
    for (const l of branded) {
      expect((await v1("GET", `/links/${l.id}`)).status).toBe(404);
      expect(JSON.parse((await bed.redis.get(redirectKey(l.short_code)))!)).toEqual({
        id: l.id,
        deleted: true,
        c: expect.any(Number),
      });
    }
    expect((await v1("GET", `/links/${plain.id}`)).status).toBe(200);
    expect(await totalLinks()).toBe(before - 2);
    // The codes stay reserved to the owner (retired-codes.ts): another account cannot take them.
    const retired = await bed.prisma.retiredCode.findMany({
      where: { linkId: { in: branded.map((l) => l.id) } },
    });
    expect(retired).toHaveLength(2);
    const taken = await fetch(`${bed.stack.origin}/api/v1/links`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${(await bed.stack.createAccount(uniqueEmail("dom-c"))).api_key}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({ url: "https://example.com/x", custom_alias: branded[0]!.short_code }),
    });
    expect(taken.status).toBe(409);
    // The rotator lists only the plain link now.
    const links = await call("GET", `/campaign/${campaign.body.id}/links`);
    expect(links.body.data.links.map((l: { link_id: string }) => l.link_id)).toEqual([plain.id]);
    const rotator = JSON.parse((await bed.redis.get(rotatorKey(slug))) ?? "null");
    expect(rotator?.links?.map((l: { id: string }) => l.id)).toEqual([plain.id]);
    // One link.deleted webhook per link, and nothing else for them.
    const hooksFor = (id: string) => receiver.accepted().filter((r) => r.json?.data?.link?.id === id);
    await waitFor(() => branded.every((l) => hooksFor(l.id).length >= 1), {
      timeoutMs: 20_000,
      description: "a link.deleted webhook per link",
    });
    for (const l of branded) {
      expect(hooksFor(l.id).map((r) => r.json.type)).toEqual(["link.deleted"]);
      expect(hooksFor(l.id)[0]!.json.data.link.short_code).toBe(l.short_code);
    }
    expect(hooksFor(plain.id)).toEqual([]);
    expect(await record(host)).toBeNull();
  });

  it("refuses, in the database itself, to delete a domain that still has links", async () => {
    const v1 = v1Caller(bed.stack, owner().api_key);
    const host = uniqueHost();
    const domain = await addVerified(call, { domain: `https://${host}` });
    const link = await v1("POST", "/links", { url: "https://example.com/fk", domain: host });
    expect(link.status, JSON.stringify(link.body)).toBe(201);
    // The foreign key is NO ACTION: a delete that forgot the links fails instead of moving them.
    await expect(bed.prisma.domain.delete({ where: { id: domain.id } })).rejects.toThrow();
    expect((await v1("GET", `/links/${link.body.data.id}`)).body.data.domain).toBe(host);
    expect((await call("DELETE", `/domain/${domain.id}/delete`)).body.links_deleted).toBe(1);
  });

  it("treats another account's domain as not found and changes nothing", async () => {
    const host = uniqueHost();
    const body = await addVerified(call, {
      domain: `https://${host}`,
      redirectroot: "https://example.com/mine",
    });
    const before = await listed(call, body.id);
    expectLegacyError(
      await other("PUT", `/domain/${body.id}/update`, { redirectroot: "https://evil.example/" }),
      404,
    );
    expectLegacyError(await other("DELETE", `/domain/${body.id}/delete`), 404);
    expectLegacyError(await other("POST", `/domain/${body.id}/verify`), 404);
    const theirs = expectLegacyList(await other("GET", "/domains?limit=100"), "domains");
    expect(theirs.domains.map((d: { id: number }) => d.id)).not.toContain(body.id);
    expect(await listed(call, body.id)).toEqual(before);
    expect(await record(host)).toMatchObject({ redirect_root: "https://example.com/mine" });
  });

  it("rejects malformed ids with 400 and unknown ids with 404", async () => {
    for (const id of ["abc", "0", "-1", "1.5", "99999999999"]) {
      expectLegacyError(await call("DELETE", `/domain/${id}/delete`), 400, /id/);
      expectLegacyError(await call("POST", `/domain/${id}/verify`), 400, /id/);
    }
    expectLegacyError(await call("DELETE", "/domain/2147483647/delete"), 404);
    expectLegacyError(await call("POST", "/domain/2147483647/verify"), 404);
    expectLegacyError(
      await call("PUT", "/domain/2147483647/update", { redirectroot: "https://example.com" }),
      404,
    );
  });

  it("pages the list: defaults, limits, the last page and past it", async () => {
    const fresh = await newCaller("paging");
    expectEmptyLegacyPage(await fresh("GET", "/domains"), "domains");

    const ids: number[] = [];
    for (let i = 0; i < 12; i++) {
      ids.push((await fresh("POST", "/domain/add", { domain: `https://${uniqueHost()}` })).body.id);
    }
    const newestFirst = [...ids].reverse();
    const first = expectLegacyList(await fresh("GET", "/domains"), "domains");
    expect(first).toMatchObject({ result: 12, perpage: 10, currentpage: 1, nextpage: 2, maxpage: 2 });
    expect(first.domains.map((d: { id: number }) => d.id)).toEqual(newestFirst.slice(0, 10));

    const last = expectLegacyList(await fresh("GET", "/domains?page=2"), "domains");
    expect(last).toMatchObject({ result: 12, perpage: 10, currentpage: 2, nextpage: null, maxpage: 2 });
    expect(last.domains.map((d: { id: number }) => d.id)).toEqual(newestFirst.slice(10));

    const small = expectLegacyList(await fresh("GET", "/domains?limit=5&page=3"), "domains");
    expect(small).toMatchObject({ perpage: 5, currentpage: 3, nextpage: null, maxpage: 3 });
    expect(small.domains).toHaveLength(2);

    expectEmptyLegacyPage(await fresh("GET", "/domains?page=9"), "domains", {
      result: 12,
      currentpage: 9,
      maxpage: 2,
    });

    const max = expectLegacyList(await fresh("GET", "/domains?limit=100"), "domains");
    expect(max).toMatchObject({ perpage: 100, maxpage: 1, nextpage: null });
    expect(max.domains).toHaveLength(12);

    for (const query of [
      "limit=0",
      "limit=101",
      "limit=abc",
      "limit=1.5",
      "page=0",
      "page=-1",
      "page=x",
      "limit=",
    ]) {
      expectLegacyError(await fresh("GET", `/domains?${query}`), 400);
    }
    expectLegacyError(await fresh("GET", "/domains?limit=1&limit=2"), 400);
  });

  it("resolves only verified hosts, in canonical form, on the internal endpoint only", async () => {
    const host = uniqueHost();
    const body = await addVerified(call, {
      domain: `https://${host}`,
      redirect404: "https://example.com/gone",
    });
    await bed.redis.del(domainKey(host));
    for (const spelling of [host.toUpperCase(), `${host}.`, `${host}:443`, `${host}:80`]) {
      const res = await resolveInternal(spelling);
      expect(res.status, spelling).toBe(200);
      expect(DomainRecord.parse(await res.json())).toEqual({
        id: body.id,
        account_id: expect.any(String),
        redirect_root: null,
        redirect_404: "https://example.com/gone",
        https: true,
        v: expect.any(Number),
      });
    }
    // The miss healed the cache for every other redirect instance.
    expect(await record(host)).not.toBeNull();

    for (const spelling of [`${host}:8080`, "unknown.example.test", "127.0.0.1", "bad host", "a/b"]) {
      expect((await resolveInternal(spelling)).status, spelling).toBe(404);
    }
    const pendingHost = uniqueHost();
    await call("POST", "/domain/add", { domain: `https://${pendingHost}` });
    expect((await resolveInternal(pendingHost)).status).toBe(404);
    expect(await record(pendingHost)).toBeNull();

    const anonymous = await fetch(`${bed.stack.urls.management}/internal/domains/resolve/${host}`);
    expect(anonymous.status).toBe(401);
  });

  it("removes stale records of unverified domains (rows from before verification)", async () => {
    const host = uniqueHost();
    const { body } = await call("POST", "/domain/add", { domain: `https://${host}` });
    // A record of an unverified domain, as a store written before domains needed verification holds.
    await bed.redis.set(
      domainKey(host),
      JSON.stringify({ id: body.id, account_id: "x", redirect_root: null, redirect_404: null }),
    );
    const verifiedHost = uniqueHost();
    await addVerified(call, { domain: `https://${verifiedHost}` });
    const logger = { warn: () => {} };
    const removed = await new DomainAndRotatorRecords(bed.redis, logger).removeUnverifiedDomains(bed.prisma);
    expect(removed).toBeGreaterThan(0);
    expect(await record(host)).toBeNull();
    expect(await record(verifiedHost)).not.toBeNull();
  });

  // End to end: the redirect service reads the record written above, through the public origin.
  it("serves a branded host's redirects only once verified, and stops on delete", async () => {
    const host = uniqueHost();
    const { body } = await call("POST", "/domain/add", {
      domain: `http://${host}`,
      redirectroot: "https://example.com/root",
      redirect404: "https://example.com/not-found",
    });
    expect((await getWithHost(`${bed.stack.origin}/`, host)).location).toBeUndefined();
    expect((await getWithHost(`${bed.stack.origin}/no-such-code-here`, host)).location).toBeUndefined();

    await dns().setTxt(body.verification.name, [body.verification.value]);
    expect((await call("POST", `/domain/${body.id}/verify`)).body.status).toBe("verified");
    // The redirect may have cached "not a domain" from the requests above; invalidation clears it.
    await waitFor(
      async () => (await getWithHost(`${bed.stack.origin}/`, host)).location === "https://example.com/root",
      {
        timeoutMs: 10_000,
        description: "the verified domain's redirectroot",
      },
    );
    const unknown = await getWithHost(`${bed.stack.origin}/no-such-code-here`, host);
    expect(unknown).toMatchObject({ status: 302, location: "https://example.com/not-found" });

    // Changes reach the redirect service's caches through the invalidation channel.
    await call("PUT", `/domain/${body.id}/update`, { redirectroot: "https://example.com/new-root" });
    await waitFor(
      async () =>
        (await getWithHost(`${bed.stack.origin}/`, host)).location === "https://example.com/new-root",
      { timeoutMs: 10_000, description: "the new redirectroot to be followed" },
    );
    await call("DELETE", `/domain/${body.id}/delete`);
    await waitFor(async () => (await getWithHost(`${bed.stack.origin}/`, host)).location === undefined, {
      timeoutMs: 10_000,
      description: "the deleted domain to stop redirecting",
    });
  });
});
