// Older API: branded domains (list, add, update, delete), their Redis records for the redirect
// service, the internal resolve endpoint, list pagination, and tenant isolation.
import { DomainRecord, domainKey } from "@kurz/contracts";
import { printProcessOutputOnFailure, waitFor } from "@kurz/testing";
import { type Stack, startStack } from "@kurz/testing/stack";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Caller,
  expectLegacyError,
  expectLegacyList,
  expectLegacyMessage,
  getWithHost,
  legacyCaller,
  RELAXED_LIMITS,
  twoTenants,
  uniqueEmail,
} from "./legacy-helpers.ts";

printProcessOutputOnFailure();

let seq = 0;
/** Hosts are unique across the service, and tests in other files may share a Redis. */
const uniqueHost = () => `go-${process.pid}-${Date.now().toString(36)}-${++seq}.example.test`;

describe("legacy branded domains", () => {
  let stack: Stack;
  let redis: Redis;
  let call: Caller;
  let other: Caller;

  beforeAll(async () => {
    stack = await startStack({ extraEnv: RELAXED_LIMITS });
    redis = new Redis(stack.env.REDIS_URL!, { keyPrefix: stack.env.REDIS_KEY_PREFIX });
    ({ call, other } = await twoTenants(stack, "dom"));
  });
  afterAll(async () => {
    redis?.disconnect();
    await stack?.stop();
  });

  const record = async (host: string) => {
    const json = await redis.get(domainKey(host));
    return json === null ? null : DomainRecord.parse(JSON.parse(json));
  };

  it("adds a domain, lists it with the SPEC 2.8 fields, and writes the redirect record", async () => {
    const host = uniqueHost();
    const added = await call("POST", "/domain/add", {
      domain: `https://${host}`,
      redirectroot: "https://example.com/home",
      redirect404: "https://example.com/404",
    });
    expect(added.status).toBe(200);
    expect(Object.keys(added.body).sort()).toEqual(["error", "id"]);
    expect(added.body.error).toBe(0);
    expect(Number.isInteger(added.body.id)).toBe(true);

    const list = expectLegacyList(await call("GET", "/domains"), "domains");
    expect(list.domains[0]).toEqual({
      id: added.body.id,
      domain: `https://${host}`,
      redirectroot: "https://example.com/home",
      redirect404: "https://example.com/404",
    });

    expect(await record(host)).toMatchObject({
      id: added.body.id,
      redirect_root: "https://example.com/home",
      redirect_404: "https://example.com/404",
    });
  });

  it("keeps the scheme, normalises the host, and answers null for unset redirects", async () => {
    const host = uniqueHost();
    const added = await call("POST", "/domain/add", { domain: `HTTP://${host.toUpperCase()}:80/` });
    expect(added.status).toBe(200);
    const { domains } = expectLegacyList(await call("GET", "/domains"), "domains");
    expect(domains.find((d: { id: number }) => d.id === added.body.id)).toEqual({
      id: added.body.id,
      domain: `http://${host}`,
      redirectroot: null,
      redirect404: null,
    });
    expect(await record(host)).toMatchObject({ redirect_root: null, redirect_404: null });
  });

  it("refuses a domain in use by anyone, whatever the scheme or case", async () => {
    const host = uniqueHost();
    expect((await call("POST", "/domain/add", { domain: `https://${host}` })).status).toBe(200);
    expectLegacyError(
      await call("POST", "/domain/add", { domain: `https://${host}` }),
      409,
      /already in use/,
    );
    expectLegacyError(await other("POST", "/domain/add", { domain: `http://${host.toUpperCase()}` }), 409);
  });

  it("rejects malformed domains and redirects with error 1 and 400", async () => {
    const bad = [
      {},
      { domain: "go.example.com" },
      { domain: "ftp://go.example.com" },
      { domain: "https://go.example.com/path" },
      { domain: "https://go.example.com/?q=1" },
      { domain: `https://${uniqueHost()}`, redirectroot: "not a url" },
      { domain: `https://${uniqueHost()}`, redirect404: "javascript:alert(1)" },
      { domain: 42 },
    ];
    for (const body of bad) expectLegacyError(await call("POST", "/domain/add", body), 400);
    expectLegacyError(await call("POST", "/domain/add", "[1,"), 400, /JSON/);
    // The service's own address can never be a branded domain.
    expectLegacyError(await call("POST", "/domain/add", { domain: stack.origin }), 400, /own address/);
  });

  it("updates and clears redirects, and rewrites the record", async () => {
    const host = uniqueHost();
    const { body } = await call("POST", "/domain/add", {
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
    const { domains } = expectLegacyList(await call("GET", "/domains?limit=100"), "domains");
    expect(domains.find((d: { id: number }) => d.id === body.id)).toMatchObject({
      redirectroot: null,
      redirect404: "https://example.com/missing",
    });
    expect(await record(host)).toMatchObject({ redirect_root: null });

    expectLegacyError(await call("PUT", `/domain/${body.id}/update`, {}), 400, /redirectroot/);
    expectLegacyError(await call("PUT", `/domain/${body.id}/update`, { redirectroot: "nope" }), 400);
  });

  it("deletes a domain and its record", async () => {
    const host = uniqueHost();
    const { body } = await call("POST", "/domain/add", { domain: `https://${host}` });
    expect(await record(host)).not.toBeNull();
    expectLegacyMessage(await call("DELETE", `/domain/${body.id}/delete`), /deleted/);
    expect(await record(host)).toBeNull();
    expectLegacyError(await call("DELETE", `/domain/${body.id}/delete`), 404, /Domain not found/);
    // The host is free again.
    expect((await other("POST", "/domain/add", { domain: `https://${host}` })).status).toBe(200);
  });

  it("treats another account's domain as not found and changes nothing", async () => {
    const host = uniqueHost();
    const { body } = await call("POST", "/domain/add", {
      domain: `https://${host}`,
      redirectroot: "https://example.com/mine",
    });
    expectLegacyError(
      await other("PUT", `/domain/${body.id}/update`, { redirectroot: "https://evil.example/" }),
      404,
    );
    expectLegacyError(await other("DELETE", `/domain/${body.id}/delete`), 404);
    const theirs = expectLegacyList(await other("GET", "/domains?limit=100"), "domains");
    expect(theirs.domains.map((d: { id: number }) => d.id)).not.toContain(body.id);
    expect(await record(host)).toMatchObject({ redirect_root: "https://example.com/mine" });
  });

  it("rejects malformed ids with 400 and unknown ids with 404", async () => {
    for (const id of ["abc", "0", "-1", "1.5", "99999999999"]) {
      expectLegacyError(await call("DELETE", `/domain/${id}/delete`), 400, /id/);
    }
    expectLegacyError(await call("DELETE", "/domain/2147483647/delete"), 404);
    expectLegacyError(
      await call("PUT", "/domain/2147483647/update", { redirectroot: "https://example.com" }),
      404,
    );
  });

  it("pages the list: defaults, limits, the last page and past it", async () => {
    const fresh = legacyCaller(stack, (await stack.createAccount(uniqueEmail("paging"))).api_key);
    const empty = expectLegacyList(await fresh("GET", "/domains"), "domains");
    expect(empty).toEqual({
      result: 0,
      perpage: 10,
      currentpage: 1,
      nextpage: null,
      maxpage: 0,
      domains: [],
    });

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

    const past = expectLegacyList(await fresh("GET", "/domains?page=9"), "domains");
    expect(past).toEqual({
      result: 12,
      perpage: 10,
      currentpage: 9,
      nextpage: null,
      maxpage: 2,
      domains: [],
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

  it("resolves a host for the redirect service on its internal endpoint only", async () => {
    const host = uniqueHost();
    const { body } = await call("POST", "/domain/add", {
      domain: `https://${host}`,
      redirect404: "https://example.com/gone",
    });
    await redis.del(domainKey(host));
    const token = { "x-kurz-internal-token": stack.env.INTERNAL_TOKEN! };
    const res = await fetch(`${stack.urls.management}/internal/domains/resolve/${host.toUpperCase()}`, {
      headers: token,
    });
    expect(res.status).toBe(200);
    expect(DomainRecord.parse(await res.json())).toEqual({
      id: body.id,
      account_id: expect.any(String),
      redirect_root: null,
      redirect_404: "https://example.com/gone",
    });
    // The miss healed the cache for every other redirect instance.
    expect(await record(host)).not.toBeNull();

    const missing = await fetch(`${stack.urls.management}/internal/domains/resolve/unknown.example.test`, {
      headers: token,
    });
    expect(missing.status).toBe(404);
    const anonymous = await fetch(`${stack.urls.management}/internal/domains/resolve/${host}`);
    expect(anonymous.status).toBe(401);
  });

  // End to end: the redirect service reads the record written above, through the public origin.
  it("redirects / and unknown codes on a branded host to its redirects", async () => {
    const host = uniqueHost();
    await call("POST", "/domain/add", {
      domain: `http://${host}`,
      redirectroot: "https://example.com/root",
      redirect404: "https://example.com/not-found",
    });
    const root = await getWithHost(`${stack.origin}/`, host);
    expect(root).toMatchObject({ status: 302, location: "https://example.com/root" });
    const unknown = await getWithHost(`${stack.origin}/no-such-code-here`, host);
    expect(unknown).toMatchObject({ status: 302, location: "https://example.com/not-found" });

    // Changes reach the redirect service's caches through the invalidation channel.
    const id = expectLegacyList(await call("GET", "/domains?limit=100"), "domains").domains.find(
      (d: { domain: string }) => d.domain === `http://${host}`,
    ).id;
    await call("PUT", `/domain/${id}/update`, { redirectroot: "https://example.com/new-root" });
    await waitFor(
      async () => (await getWithHost(`${stack.origin}/`, host)).location === "https://example.com/new-root",
      {
        timeoutMs: 10_000,
        description: "the new redirectroot to be followed",
      },
    );
    await call("DELETE", `/domain/${id}/delete`);
    await waitFor(async () => (await getWithHost(`${stack.origin}/`, host)).location === undefined, {
      timeoutMs: 10_000,
      description: "the deleted domain to stop redirecting",
    });
  });
});
