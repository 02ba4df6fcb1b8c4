import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect, it } from "vitest";
import {
  createOpsServer,
  createServiceMetrics,
  labelRoute,
  routeOf,
  scrapeCounter,
  scrapeGauge,
  UNMATCHED_ROUTE,
  withRequestMetrics,
} from "../src/index.ts";

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

async function serve(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

it("a scrape-time read that hangs is cut at its timeout: the scrape answers, the failure is counted", async () => {
  const metrics = createServiceMetrics();
  let value = 7;
  let hang = false;
  scrapeGauge(metrics, {
    name: "test_depth",
    help: "a depth",
    timeoutMs: 50,
    read: () => (hang ? new Promise(() => {}) : Promise.resolve([{ value }])),
  });
  expect(await metrics.registry.metrics()).toMatch(/^test_depth 7$/m);
  hang = true;
  value = 9;
  const started = Date.now();
  const text = await metrics.registry.metrics();
  expect(Date.now() - started).toBeLessThan(1_000);
  // The last value stays; the failure is counted under the gauge's name (the counter is written while
  // the gauge's read is still pending, so the next scrape shows it).
  expect(text).toMatch(/^test_depth 7$/m);
  expect(await metrics.registry.metrics()).toMatch(
    /^metrics_collect_failures_total\{metric="test_depth"\} [12]$/m,
  );
});

it("a counter kept as plain numbers is read on each scrape", async () => {
  const metrics = createServiceMetrics();
  const counts = { hit: 0, miss: 0 };
  scrapeCounter(metrics, {
    name: "test_reads_total",
    help: "reads",
    labelNames: ["result"],
    read: () => Object.entries(counts).map(([result, value]) => ({ labels: { result }, value })),
  });
  counts.hit = 3;
  expect(await metrics.registry.metrics()).toMatch(/^test_reads_total\{result="hit"\} 3$/m);
  counts.hit = 5;
  expect(await metrics.registry.metrics()).toMatch(/^test_reads_total\{result="hit"\} 5$/m);
});

it("times requests under the route record they were labelled with, and serves them on the ops listener", async () => {
  const metrics = createServiceMetrics();
  const app = withRequestMetrics(metrics, (req, res) => {
    if (req.url?.startsWith("/api/v1/links/")) labelRoute(res, "/api/v1/links/:id");
    res.statusCode = req.url?.endsWith("boom") ? 500 : 200;
    res.end();
  });
  const origin = await serve(createServer(app));
  const ops = await serve(createOpsServer({ readiness: {}, metrics }));
  await fetch(`${origin}/api/v1/links/lnk_secret_1`);
  await fetch(`${origin}/api/v1/links/lnk_secret_2`);
  await fetch(`${origin}/elsewhere/boom`);
  const res = await fetch(`${ops}/metrics`);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  expect(text).toMatch(
    /^http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/links\/:id",status="2xx"\} 2$/m,
  );
  expect(text).toMatch(
    new RegExp(
      `^http_request_duration_seconds_count\\{method="GET",route="${UNMATCHED_ROUTE}",status="5xx"\\} 1$`,
      "m",
    ),
  );
  expect(text).not.toContain("lnk_secret");
  expect((await fetch(`${ops}/health`)).status).toBe(200);
  expect((await fetch(`${ops}/ready`)).status).toBe(200);
  expect((await fetch(`${ops}/metrics`, { method: "POST" })).status).toBe(404);
  expect((await fetch(`${ops}/other`)).status).toBe(404);
  expect((await fetch(`${origin}/metrics`)).status).toBe(200); // the app's own answer, not metrics
});

it("routeOf falls back to Express's matched route, then to unmatched", () => {
  const res = {} as Parameters<typeof routeOf>[1];
  expect(routeOf({ route: { path: "/internal/links/:code" } } as never, res)).toBe("/internal/links/:code");
  expect(routeOf({} as never, res)).toBe(UNMATCHED_ROUTE);
});
