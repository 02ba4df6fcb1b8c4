// A broken link through the whole stack (docs/health.md): two failing checks in a row deliver exactly one
// signed `link.broken` to a real local receiver and send the real redirect's visitors to broken_url;
// the first healthy check delivers `link.recovered` and the destination is served again; one failure
// followed by health delivers nothing. The destination is a real HTTP server on loopback (allowed as the
// title fetch's tests allow it) whose answer the test switches.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { waitFor } from "@kurz/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectV1Success, useLinksStack, type V1Caller } from "./links-helpers.ts";
import {
  FAST_WEBHOOKS_ENV,
  type Receiver,
  startReceiver,
  verifyStandardWebhook,
} from "./webhooks-helpers.ts";

const bed = useLinksStack({ ...FAST_WEBHOOKS_ENV, TITLE_FETCH_ALLOW_HOSTS: "127.0.0.1" });
let receiver: Receiver;
let destination: Server;
let port: number;
let answer = 200;
let call: V1Caller;
let secret: string;

beforeAll(async () => {
  destination = createServer((_req, res) => res.writeHead(answer).end());
  await new Promise<void>((r) => destination.listen(0, "127.0.0.1", r));
  port = (destination.address() as AddressInfo).port;
  receiver = await startReceiver();
  call = (await bed.newAccount("broken-links")).api;
  const hook = await call("POST", "/webhooks", {
    url: receiver.url,
    events: ["link.broken", "link.recovered"],
  });
  expectV1Success(hook, 201);
  secret = hook.body.data.secret;
});

afterAll(async () => {
  await receiver?.close();
  destination?.closeAllConnections();
  await new Promise<void>((r) => (destination ? destination.close(() => r()) : r()));
});

const check = async (id: string) => {
  const res = await call("POST", `/links/${id}/health/check`);
  expectV1Success(res);
  return res.body.data;
};

/** Where the real redirect sends a visitor of `code` now. */
const visit = async (code: string) => {
  const res = await fetch(`${bed.stack.origin}/${code}`, { redirect: "manual" });
  await res.body?.cancel();
  return { status: res.status, location: res.headers.get("location") };
};

const eventsOf = (id: string) =>
  receiver
    .accepted()
    .filter((r) => r.json?.data?.link?.id === id)
    .map((r) => r.json);

describe("a broken link", () => {
  it("breaks after two failures in a row (one event, broken_url served) and recovers at the first ok", async () => {
    // First a link that fails once, then answers: nothing is ever announced for it.
    const once = await call("POST", "/links", { url: `http://127.0.0.1:${port}/once`, title: "once" });
    expectV1Success(once, 201);
    answer = 503;
    await check(once.body.data.id);
    answer = 200;
    await check(once.body.data.id);

    const destinationUrl = `http://127.0.0.1:${port}/page`;
    const created = await call("POST", "/links", {
      url: destinationUrl,
      title: "broken",
      broken_url: "https://status.example.com/sorry",
    });
    expectV1Success(created, 201);
    const { id, short_code: code } = created.body.data;
    expect(created.body.data).toMatchObject({
      broken_url: "https://status.example.com/sorry",
      broken_since: null,
    });

    answer = 503;
    const first = await check(id);
    expect(first).toMatchObject({ broken_since: null, consecutive_failures: 1 });
    expect(await visit(code)).toEqual({ status: 302, location: destinationUrl });

    const second = await check(id);
    expect(second.broken_since).toBe(second.current.checked_at);
    await waitFor(async () => (await visit(code)).location === "https://status.example.com/sorry", {
      timeoutMs: 10_000,
      description: "the redirect serving broken_url",
    });
    expect(await visit(code)).toEqual({ status: 302, location: "https://status.example.com/sorry" });
    await check(id); // a third failure: still the same broken spell

    const listed = await call("GET", "/links?health=broken");
    expectV1Success(listed);
    expect(listed.body.data.map((l: { id: string }) => l.id)).toEqual([id]);
    expect(listed.body.data[0].broken_since).toBe(second.broken_since);

    await waitFor(() => eventsOf(id).length >= 1, { timeoutMs: 20_000, description: "link.broken" });
    answer = 200;
    const recovered = await check(id);
    expect(recovered).toMatchObject({ broken_since: null, consecutive_failures: 0 });
    await waitFor(() => eventsOf(id).length >= 2, { timeoutMs: 20_000, description: "link.recovered" });

    const events = eventsOf(id);
    expect(events.map((e) => e.type)).toEqual(["link.broken", "link.recovered"]);
    expect(events[0].data).toEqual({
      link: expect.objectContaining({ id, short_code: code, original_url: destinationUrl }),
      health: {
        state: "server_error",
        status_code: 503,
        final_url: destinationUrl,
        checked_at: second.current.checked_at,
      },
    });
    expect(events[1].data.health).toMatchObject({ state: "ok", status_code: 200 });
    for (const r of receiver.accepted()) {
      expect(verifyStandardWebhook(secret, r.headers, r.body, Math.floor(Date.now() / 1000))).toBe(true);
    }
    // The link that failed once before it answered was checked before all of this: nothing for it.
    expect(eventsOf(once.body.data.id)).toEqual([]);
    expect(await bed.prisma.webhookDelivery.count({ where: { orderKey: once.body.data.id } })).toBe(0);

    await waitFor(async () => (await visit(code)).location === destinationUrl, {
      timeoutMs: 10_000,
      description: "the redirect serving the destination again",
    });
    const after = await call("GET", "/links?health=broken");
    expect(after.body.data).toEqual([]);
  }, 60_000);

  it("broken_url is set, changed and removed by PATCH, and refused when it is a Kurz short link", async () => {
    const created = await call("POST", "/links", { url: "https://example.com/x", title: "x" });
    expectV1Success(created, 201);
    const id = created.body.data.id;
    const set = await call("PATCH", `/links/${id}`, { broken_url: "https://example.com/down" });
    expectV1Success(set);
    expect(set.body.data.broken_url).toBe("https://example.com/down");
    const cleared = await call("PATCH", `/links/${id}`, { broken_url: null });
    expect(cleared.body.data.broken_url).toBeNull();
    const loop = await call("PATCH", `/links/${id}`, { broken_url: `${bed.stack.origin}/abc` });
    expect(loop.status).toBe(400);
    expect(loop.body.error.code).toBe("VALIDATION_ERROR");
    const refusedCreate = await call("POST", "/links", {
      url: "https://example.com/y",
      broken_url: `${bed.stack.origin}/abc`,
    });
    expect(refusedCreate.status).toBe(400);
    expect((await call("GET", `/links/${id}`)).body.data.broken_url).toBeNull();
    expect((await call("PATCH", `/links/${id}`, { broken_url: "ftp://example.com/" })).status).toBe(400);
  });
});
