// The internal client calls a route by its record: the path from the record with its parameters
// encoded into their segments, the caller's headers, the record's method, a JSON body when given.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { INTERNAL_ROUTES } from "@kurz/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { internalHeaders } from "../src/internal-auth.ts";
import { createInternalClient } from "../src/internal-client.ts";

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

describe("createInternalClient", () => {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString("utf8");
    });
    req.on("end", () => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      res.writeHead(404).end();
    });
  });
  let baseUrl = "";
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("builds the record's path with each parameter encoded into its own segment, and the query in order", () => {
    const client = createInternalClient("http://management", {});
    expect(client.pathOf(INTERNAL_ROUTES.resolveLink, { code: "a/b?c" })).toBe(
      "/internal/links/resolve/a%2Fb%3Fc",
    );
    expect(
      client.pathOf(
        INTERNAL_ROUTES.getLinksSummary,
        { account_id: "acc" },
        { candidates: "x,y", deleted_within: "60" },
      ),
    ).toBe("/internal/analytics/accounts/acc/links-summary?candidates=x%2Cy&deleted_within=60");
  });

  it("sends the record's method, the caller's headers and a JSON body", async () => {
    const headers = internalHeaders("secret", "gateway");
    const client = createInternalClient(baseUrl, headers);
    const renewed = await client.call(INTERNAL_ROUTES.renewSession, { hash: "ab12" }, { timeoutMs: 2_000 });
    expect(renewed.status).toBe(404);
    const posted = await client.call(
      INTERNAL_ROUTES.submitOverlay,
      {},
      { body: { short_code: "abc" }, timeoutMs: 2_000 },
    );
    expect(posted.status).toBe(404);
    expect(seen.map(({ method, url, body }) => ({ method, url, body }))).toEqual([
      { method: "POST", url: "/internal/sessions/ab12/renew", body: "" },
      { method: "POST", url: "/internal/overlays/submissions", body: '{"short_code":"abc"}' },
    ]);
    for (const { headers: got } of seen) {
      for (const [name, value] of Object.entries(headers)) expect(got[name]).toBe(value);
    }
    expect(seen[1]!.headers["content-type"]).toBe("application/json");
  });
});
