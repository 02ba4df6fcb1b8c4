// Attacks on link health (docs/health.md): another workspace's link checked or read, a viewer starting
// checks, the check-now budget spent, destinations that must not be fetched (loopback not on the
// allow-list), and a broken link: another workspace neither sees it, nor changes its broken_url, nor
// hears of it, and a broken_url may not send visitors into another Kurz short link. The destinations are real local HTTP servers on loopback, allowed as the title fetch's
// tests allow them (TITLE_FETCH_ALLOW_HOSTS).

import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { waitFor } from "@kurz/testing";
import { useHttpServer } from "@kurz/testing/use-stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callAs, expectV1Error, useSessionStack } from "./attack.ts";
import { keyOf, makeTeam, type Team } from "./team.ts";

// 127.0.0.1 serves; 127.0.0.2–.13 are allowed but nothing listens there (quick connection errors on
// distinct sites, so the budget test is not slowed by the per-site politeness limit).
const ALLOWED = ["127.0.0.1", ...Array.from({ length: 12 }, (_, i) => `127.0.0.${i + 2}`)];
const { bed } = useSessionStack(
  {
    SESSION_RATE_LIMIT_PER_MINUTE: "100000",
    TITLE_FETCH_ALLOW_HOSTS: ALLOWED.join(","),
    WEBHOOK_ALLOW_HOSTS: "127.0.0.1",
    WEBHOOK_POLL_MS: "100",
  },
  { inProcess: true },
);
// Each workspace's webhook receiver: what each one heard, by event type and link.
const heard: { team: string[]; rival: string[] } = { team: [], rival: [] };
const receiver = (who: keyof typeof heard) =>
  useHttpServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString("utf8");
    });
    req.on("end", () => {
      const event = JSON.parse(body) as { type: string; data: { link: { id: string } } };
      heard[who].push(`${event.type} ${event.data.link.id}`);
      res.end("ok");
    });
  });
const teamReceiver = receiver("team");
const rivalReceiver = receiver("rival");
const origin = () => bed.stack.origin;

let server: Server;
let port: number;
let answer = 200;
let team: Team;
let rival: Team;
let key: string;
let rivalKey: string;

beforeAll(async () => {
  server = createServer((_req, res) => res.writeHead(answer).end());
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
  [team, rival] = await Promise.all([makeTeam(origin(), "health"), makeTeam(origin(), "health-rival")]);
  [key, rivalKey] = await Promise.all([
    keyOf(origin(), team.people.owner),
    keyOf(origin(), rival.people.owner),
  ]);
}, 90_000);

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
});

async function newLink(url: string, as = key): Promise<string> {
  const res = await callAs(origin(), "POST", "/api/v1/links", { key: as }, { url, title: "health" });
  expect(res.status, res.text).toBe(201);
  return res.body.data.id as string;
}

describe("link health", () => {
  it("checks now, keeps the current state, and adds history only on change", async () => {
    answer = 200;
    const id = await newLink(`http://127.0.0.1:${port}/page`);
    const before = await callAs(origin(), "GET", `/api/v1/links/${id}/health`, { key });
    expect(before.status, before.text).toBe(200);
    expect(before.body.data).toEqual({
      link_id: id,
      broken_since: null,
      consecutive_failures: 0,
      current: null,
      history: [],
    });

    const first = await callAs(origin(), "POST", `/api/v1/links/${id}/health/check`, { key });
    expect(first.status, first.text).toBe(200);
    expect(first.body.data.current).toMatchObject({
      state: "ok",
      status_code: 200,
      final_url: `http://127.0.0.1:${port}/page`,
      hops: [{ url: `http://127.0.0.1:${port}/page`, status: 200, method: "HEAD" }],
    });
    expect(first.body.data.history).toHaveLength(1);

    answer = 503;
    const down = await callAs(origin(), "POST", `/api/v1/links/${id}/health/check`, { key });
    expect(down.body.data.current).toMatchObject({ state: "server_error", status_code: 503 });
    const again = await callAs(origin(), "POST", `/api/v1/links/${id}/health/check`, { key });
    expect(again.body.data.history.map((h: { state: string }) => h.state)).toEqual(["server_error", "ok"]);
    answer = 200;

    // The list's health filter: the last check's state, in the caller's workspace only.
    const broken = await callAs(origin(), "GET", "/api/v1/links?health=server_error", { key });
    expect(broken.body.data.map((l: { id: string }) => l.id)).toEqual([id]);
    const fine = await callAs(origin(), "GET", "/api/v1/links?health=ok", { key });
    expect(fine.body.data.map((l: { id: string }) => l.id)).not.toContain(id);
    const rivals = await callAs(origin(), "GET", "/api/v1/links?health=server_error", { key: rivalKey });
    expect(rivals.body.data).toEqual([]);
    expectV1Error(
      await callAs(origin(), "GET", "/api/v1/links?health=dead", { key }),
      400,
      "VALIDATION_ERROR",
    );
  }, 30_000);

  it("another workspace's link answers 404 as an unknown id does, and nothing is checked", async () => {
    const id = await newLink(`http://127.0.0.1:${port}/theirs`);
    for (const [method, path] of [
      ["GET", `/api/v1/links/${id}/health`],
      ["POST", `/api/v1/links/${id}/health/check`],
    ] as const) {
      const theirs = await callAs(origin(), method, path, { key: rivalKey });
      const unknown = await callAs(origin(), method, path.replace(id, randomUUID()), { key: rivalKey });
      expectV1Error(theirs, 404, "NOT_FOUND");
      expectV1Error(unknown, 404, "NOT_FOUND");
      expect(theirs.body.error.message).toBe(unknown.body.error.message);
    }
    const own = await callAs(origin(), "GET", `/api/v1/links/${id}/health`, { key });
    expect(own.body.data.current).toBeNull();
  });

  it("a viewer reads health but cannot start a check", async () => {
    const id = await newLink(`http://127.0.0.1:${port}/viewer`);
    const viewer = team.people.viewer.session;
    expectV1Error(
      await callAs(origin(), "POST", `/api/v1/links/${id}/health/check`, viewer),
      403,
      "FORBIDDEN",
    );
    expect((await callAs(origin(), "GET", `/api/v1/links/${id}/health`, viewer)).status).toBe(200);
  });

  it("refuses a destination on a private address that is not allow-listed, without fetching it", async () => {
    const id = await newLink(`http://10.0.0.1:${port}/internal`);
    const res = await callAs(origin(), "POST", `/api/v1/links/${id}/health/check`, { key });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.current).toMatchObject({ state: "refused", status_code: null });
  });

  it("budgets checks on demand per workspace: 429 in the rate-limit format beyond it", async () => {
    // The rival's own budget is untouched by the tests above.
    const ids: string[] = [];
    for (const host of ALLOWED.slice(1)) ids.push(await newLink(`http://${host}:${port}/`, rivalKey));
    let limited: Awaited<ReturnType<typeof callAs>> | null = null;
    // Twice the budget and one more: enough even when a clock minute turns during the loop.
    for (let i = 0; i < 21 && limited === null; i++) {
      const res = await callAs(origin(), "POST", `/api/v1/links/${ids[i % ids.length]}/health/check`, {
        key: rivalKey,
      });
      if (res.status === 429) limited = res;
      else expect(res.status, res.text).toBe(200);
    }
    expect(limited).not.toBeNull();
    expectV1Error(limited!, 429, "RATE_LIMIT_EXCEEDED");
    expect(limited!.body.error.details).toMatchObject({ limit: 10, window: "1m" });
    expect(Number(limited!.headers["retry-after"])).toBeGreaterThan(0);
    // Another workspace still has its own.
    const id = await newLink(`http://127.0.0.1:${port}/other`);
    expect((await callAs(origin(), "POST", `/api/v1/links/${id}/health/check`, { key })).status).toBe(200);
  }, 60_000);
});

describe("broken links", () => {
  // After the budget test, which spent the rival's checks: only the team checks here (2 of its 10).
  it("another workspace neither sees, changes nor hears of a broken link", async () => {
    for (const [who, as, url] of [
      ["team", key, teamReceiver().origin],
      ["rival", rivalKey, rivalReceiver().origin],
    ] as const) {
      const hook = await callAs(
        origin(),
        "POST",
        "/api/v1/webhooks",
        { key: as },
        { url: `${url}/${who}`, events: ["link.broken", "link.recovered"] },
      );
      expect(hook.status, hook.text).toBe(201);
    }
    const id = await newLink(`http://127.0.0.1:${port}/breaks`);
    answer = 503;
    for (let i = 0; i < 2; i++) {
      const res = await callAs(origin(), "POST", `/api/v1/links/${id}/health/check`, { key });
      expect(res.status, res.text).toBe(200);
    }
    answer = 200;
    const own = await callAs(origin(), "GET", "/api/v1/links?health=broken", { key });
    expect(own.body.data.map((l: { id: string }) => l.id)).toContain(id);

    // The rival's list holds none of the team's links (its own may be broken too: the budget test's
    // links fail their checks, twice when a clock minute turns during its loop and renews the budget).
    const theirs = await callAs(origin(), "GET", "/api/v1/links?health=broken", { key: rivalKey });
    expect(theirs.status).toBe(200);
    const theirIds = theirs.body.data.map((l: { id: string }) => l.id);
    expect(theirIds).not.toContain(id);
    const rivalsOwn = await callAs(origin(), "GET", "/api/v1/links?limit=100", { key: rivalKey });
    expect(rivalsOwn.status, rivalsOwn.text).toBe(200);
    const rivalIds = rivalsOwn.body.data.map((l: { id: string }) => l.id);
    for (const theirId of theirIds) expect(rivalIds).toContain(theirId);
    const patch = await callAs(
      origin(),
      "PATCH",
      `/api/v1/links/${id}`,
      { key: rivalKey },
      { broken_url: "https://attacker.example/" },
    );
    const unknown = await callAs(
      origin(),
      "PATCH",
      `/api/v1/links/${randomUUID()}`,
      { key: rivalKey },
      { broken_url: "https://attacker.example/" },
    );
    expectV1Error(patch, 404, "NOT_FOUND");
    expect(patch.body.error.message).toBe(unknown.body.error.message);
    const link = await callAs(origin(), "GET", `/api/v1/links/${id}`, { key });
    expect(link.body.data).toMatchObject({ broken_url: null, broken_since: expect.any(String) });

    await waitFor(() => heard.team.includes(`link.broken ${id}`), {
      timeoutMs: 20_000,
      description: "the owner's link.broken",
    });
    expect(heard.team.filter((e) => e.endsWith(id))).toEqual([`link.broken ${id}`]);
    expect(heard.rival).toEqual([]);
  }, 60_000);

  it("refuses a broken_url that is a Kurz short link or not http(s), and changes nothing", async () => {
    const id = await newLink("https://example.com/fine");
    for (const bad of [
      `${origin()}/some-code`,
      `${origin()}/another?with=query`,
      "javascript:alert(1)",
      "ftp://example.com/",
      "",
    ]) {
      const res = await callAs(origin(), "PATCH", `/api/v1/links/${id}`, { key }, { broken_url: bad });
      expectV1Error(res, 400, "VALIDATION_ERROR");
      const created = await callAs(
        origin(),
        "POST",
        "/api/v1/links",
        { key },
        { url: "https://example.com/new", broken_url: bad },
      );
      expectV1Error(created, 400, "VALIDATION_ERROR");
    }
    const link = await callAs(origin(), "GET", `/api/v1/links/${id}`, { key });
    expect(link.body.data.broken_url).toBeNull();
  });
});
