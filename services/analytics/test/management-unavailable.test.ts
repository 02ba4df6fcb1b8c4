// When management cannot say which links exist, analytics answers 503 SERVICE_UNAVAILABLE in a bounded
// time: never a 200 for a link that may be deleted, nor a 404 for one that may exist.
// Management here is absent (a closed port), silent (accepts and never answers) or broken (500s).
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { KurzClickHouse } from "@kurz/clickhouse";
import { SCOPES } from "@kurz/contracts";
import { createLogger, forwardedHeaders } from "@kurz/service-kit";
import { getFreePort } from "@kurz/testing";
import { openMigratedChdb } from "@kurz/testing/migrated-chdb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAnalyticsApp } from "../src/app.ts";
import { ManagementLinks } from "../src/management-links.ts";

const TOKEN = "unavailable-test-token";
const TIMEOUT_MS = 300;
const logger = createLogger("analytics-test", "silent");
let ch: KurzClickHouse;
const servers: Server[] = [];

const listen = async (server: Server) => {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

/** An analytics app whose management is at `managementUrl`; returns its base URL. */
async function analyticsWith(managementUrl: string): Promise<string> {
  const links = new ManagementLinks({
    managementUrl,
    internalToken: TOKEN,
    deletedWindowSeconds: 900,
    logger,
    timeoutMs: TIMEOUT_MS,
  });
  return listen(createServer(createAnalyticsApp({ ch, links, logger, internalToken: TOKEN, readiness: {} })));
}

beforeAll(async () => {
  ch = await openMigratedChdb();
});
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  await ch?.close();
});

const managements: [string, () => Promise<string>][] = [
  ["absent", async () => `http://127.0.0.1:${await getFreePort()}`],
  ["silent", () => listen(createServer(() => {}))],
  [
    "broken",
    () =>
      listen(
        createServer((_req, res) => {
          res.writeHead(500, { "content-type": "application/json" }).end('{"success":false}');
        }),
      ),
  ],
  [
    "answering another shape",
    () =>
      listen(
        createServer((_req, res) => {
          res.writeHead(200, { "content-type": "application/json" }).end('{"short_code":1}');
        }),
      ),
  ],
];

describe.each(managements)("management %s", (_name, start) => {
  let base: string;
  beforeAll(async () => {
    base = await analyticsWith(await start());
  });

  it.each([
    ["a link's analytics", `/api/v1/analytics/${randomUUID()}`, true],
    ["the summary", "/api/v1/analytics/summary", true],
    ["public analytics", "/api/v1/public/analytics/some-code", false],
  ])("%s: 503 SERVICE_UNAVAILABLE within the timeout", async (_what, path, authenticated) => {
    const started = performance.now();
    const res = await fetch(`${base}${path}`, {
      headers: authenticated
        ? forwardedHeaders(TOKEN, { accountId: randomUUID(), keyId: randomUUID(), scopes: [...SCOPES] })
        : {},
    });
    const elapsed = performance.now() - started;
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ success: false, error: { code: "SERVICE_UNAVAILABLE" } });
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 2_000);
  });
});
