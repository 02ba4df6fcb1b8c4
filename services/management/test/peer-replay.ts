// A loopback HTTP server answering as the real Kutt v3.2.3 and YOURLS 1.10.4 answered when their
// exports were recorded (fixtures/imports/kutt-v3 and yourls-api, with how in their README): each
// request gets the recorded response for its page, its wrong credential or its path. It replays the
// peers' own bytes; nothing of Kurz is stood in for.
import { readdirSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";

const FIXTURES = join(import.meta.dirname, "fixtures/imports");
const JSON_TYPE = "application/json; charset=utf-8";

export const kuttDir = join(FIXTURES, "kutt-v3");
export const yourlsDir = join(FIXTURES, "yourls-api");

/** Kutt's recorded pages, by the `skip` each one answered. */
export function kuttPages(): Map<number, Buffer> {
  const pages = new Map<number, Buffer>();
  for (const name of readdirSync(kuttDir).filter((n) => /^page-\d+\.json$/.test(n))) {
    const bytes = readFileSync(join(kuttDir, name));
    pages.set(JSON.parse(bytes.toString()).skip, bytes);
  }
  return pages;
}

export interface PeerReplay {
  origin: string;
  /** Every request's path and query, in order. */
  requests: URL[];
  close(): Promise<void>;
}

/**
 * Kutt at `/api/v2/links` (key `kuttKey`) and YOURLS at `/yourls-api.php` (signature `yourlsSignature`),
 * as recorded. `/html/…` answers an HTML page, `/redirect/…` a 302 to another host, `/echo/…` Kutt's
 * 500 with the request's key in the message, `/silent/…` nothing at all.
 */
export async function startPeerReplay(kuttKey: string, yourlsSignature: string): Promise<PeerReplay> {
  const pages = kuttPages();
  const kuttUnauthorized = readFileSync(join(kuttDir, "error-401.json"));
  const yourlsAll = readFileSync(join(yourlsDir, "stats-limit-1000.json"));
  const yourlsTotal = Number(JSON.parse(yourlsAll.toString()).stats.total_links);
  const yourlsForbidden = readFileSync(join(yourlsDir, "error-403.json"));
  const requests: URL[] = [];
  const json = (res: ServerResponse, status: number, body: Buffer | string) => {
    res.writeHead(status, { "content-type": JSON_TYPE });
    res.end(body);
  };
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://replay");
    requests.push(url);
    if (url.pathname.startsWith("/silent/")) return; // never answers
    if (url.pathname.startsWith("/html/")) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      return res.end("<!doctype html><title>Not a shortener</title>");
    }
    if (url.pathname.startsWith("/redirect/")) {
      res.writeHead(302, { location: `http://elsewhere.invalid/api/v2/links${url.search}` });
      return res.end();
    }
    if (url.pathname.startsWith("/echo/")) {
      return json(res, 500, JSON.stringify({ error: `bad key ${req.headers["x-api-key"]}` }));
    }
    if (url.pathname === "/api/v2/links") {
      if (req.headers["x-api-key"] !== kuttKey) return json(res, 401, kuttUnauthorized);
      // Kutt answers the page at `skip`, at most 50 links whatever `limit` asks.
      const page = pages.get(Number(url.searchParams.get("skip") ?? 0));
      if (!page) return json(res, 500, JSON.stringify({ error: "no page recorded at this skip" }));
      return json(res, 200, page);
    }
    if (url.pathname === "/yourls-api.php") {
      if (url.searchParams.get("signature") !== yourlsSignature) return json(res, 403, yourlsForbidden);
      const limit = Number(url.searchParams.get("limit"));
      const start = Number(url.searchParams.get("start") ?? 0);
      if (start === 0 && limit >= yourlsTotal) return json(res, 200, yourlsAll);
      try {
        return json(res, 200, readFileSync(join(yourlsDir, `stats-limit-${limit}-start-${start}.json`)));
      } catch {
        return json(res, 500, JSON.stringify({ message: "no page recorded at this limit and start" }));
      }
    }
    json(res, 404, JSON.stringify({ error: "not recorded" }));
  };
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
