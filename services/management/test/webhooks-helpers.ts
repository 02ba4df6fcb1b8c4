// Shared by the webhook tests: a local receiver (node:http) that verifies Standard Webhooks signatures
// with its own implementation of the spec, and link events to feed the dispatcher.
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { LinkEvent } from "@kurz/contracts";
import { linkEvent } from "../src/db/outbox.ts";
import { linkRow } from "./link-row.ts";

/**
 * Verification as a receiver would write it from https://www.standardwebhooks.com: HMAC-SHA256 over
 * `id.timestamp.body` with the base64-decoded secret, compared in constant time with every `v1,`
 * signature in the (space-separated) header, and the timestamp within a tolerance of `nowSeconds`.
 */
export function verifyStandardWebhook(
  secret: string,
  headers: IncomingHttpHeaders,
  body: string,
  nowSeconds: number,
  toleranceSeconds = 300,
): boolean {
  const id = headers["webhook-id"];
  const ts = headers["webhook-timestamp"];
  const sigs = headers["webhook-signature"];
  if (typeof id !== "string" || typeof ts !== "string" || typeof sigs !== "string") return false;
  if (!/^\d+$/.test(ts) || Math.abs(nowSeconds - Number(ts)) > toleranceSeconds) return false;
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const expected = createHmac("sha256", key).update(`${id}.${ts}.${body}`).digest();
  return sigs.split(" ").some((s) => {
    const [version, b64] = s.split(",");
    if (version !== "v1" || !b64) return false;
    const got = Buffer.from(b64, "base64");
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
}

export interface Received {
  id: string;
  headers: IncomingHttpHeaders;
  body: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read the payload member by member
  json: any;
  /** What the receiver answered. */
  status: number;
}

/**
 * A receiver on 127.0.0.1. `answer` decides the status of each request (default 200); `close()` and
 * `reopen()` take it down and bring it back on the same port (connection refused meanwhile).
 */
export async function startReceiver(answer: (r: Omit<Received, "status">) => number = () => 200) {
  const requests: Received[] = [];
  let decide = answer;
  const make = () =>
    createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        let json: unknown = null;
        try {
          json = JSON.parse(body);
        } catch {}
        const base = { id: String(req.headers["webhook-id"]), headers: req.headers, body, json };
        const status = decide(base);
        requests.push({ ...base, status });
        res.writeHead(status, { "content-type": "text/plain" });
        res.end("ok");
      });
    });
  let server: Server = make();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return {
    port,
    url: `http://127.0.0.1:${port}/hook`,
    requests,
    setAnswer(next: (r: Omit<Received, "status">) => number) {
      decide = next;
    },
    /** Requests answered 2xx, i.e. deliveries the receiver accepted. */
    accepted: () => requests.filter((r) => r.status >= 200 && r.status < 300),
    close,
    async reopen() {
      server = make();
      await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** A link event as management's outbox writes it; `n` goes into the title so order can be checked. */
export function linkEventOf(
  accountId: string,
  linkId: string,
  type: "link.created" | "link.updated" | "link.deleted",
  n: number,
  at: number,
): LinkEvent {
  const when = new Date(at);
  return linkEvent(
    type,
    linkRow({
      id: linkId,
      accountId,
      shortCode: `c${linkId.slice(0, 6)}`,
      originalUrl: "https://example.com/",
      title: String(n),
      expiresAt: null,
      createdAt: when,
    }),
    when,
  );
}

/** Environment for a stack whose webhooks may reach a receiver on 127.0.0.1, quickly. */
export const FAST_WEBHOOKS_ENV = {
  WEBHOOK_ALLOW_HOSTS: "127.0.0.1",
  WEBHOOK_POLL_MS: "100",
  WEBHOOK_RETRY_BASE_MS: "200",
  WEBHOOK_RETRY_MAX_MS: "1000",
  WEBHOOK_CLICK_BATCH_MS: "300",
};
