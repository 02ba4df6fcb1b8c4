// The public redirect path. Plain node:http: ENVIRONMENT.md measured Express at ~7x the cost of a
// whole bare redirect. A cached code is answered without awaiting anything.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { RedirectRecord } from "@kurz/contracts";
import { v7 as uuidv7 } from "uuid";
import type { ClickPublisher } from "./click-publisher.ts";
import { clientIp } from "./client-ip.ts";
import { gone, notFound, sendStatusPage, unavailable } from "./pages.ts";
import type { Resolver } from "./resolver.ts";

export interface RedirectHandlerDeps {
  resolver: Resolver;
  publisher: ClickPublisher;
  redirectStatus: number;
  /** Number of trusted proxies in front (0 = use the socket address). */
  trustProxy: number;
  health: (req: IncomingMessage, res: ServerResponse) => boolean;
  logger: { error(o: object, m?: string): void };
}

const header = (v: string | string[] | undefined): string | null =>
  Array.isArray(v) ? (v[0] ?? null) : (v ?? null);

export function createRedirectHandler(deps: RedirectHandlerDeps) {
  const { resolver, publisher, redirectStatus, trustProxy } = deps;

  function answer(
    req: IncomingMessage,
    res: ServerResponse,
    code: string,
    record: RedirectRecord | null,
  ): void {
    if (!record?.active) {
      notFound(req, res);
      return;
    }
    if (record.expires_at !== null && record.expires_at <= Date.now()) {
      gone(req, res);
      return;
    }
    if (record.password_hash) {
      // The password form arrives with the redirect issue; until then a protected link never leaks its target.
      sendStatusPage(
        req,
        res,
        401,
        "PASSWORD_REQUIRED",
        "Password required",
        "This link is password protected.",
      );
      return;
    }
    res.writeHead(redirectStatus, {
      location: record.url,
      "cache-control": "private, max-age=0",
      "content-length": 0,
    });
    res.end();
    if (req.method === "GET") {
      publisher.push({
        v: 1,
        click_id: uuidv7(),
        link_id: record.id,
        account_id: record.account_id,
        short_code: code,
        ts: new Date().toISOString(),
        ip: clientIp(req, trustProxy),
        user_agent: header(req.headers["user-agent"]),
        referrer: header(req.headers.referer),
        host: header(req.headers.host),
      });
    }
  }

  return function handle(req: IncomingMessage, res: ServerResponse): void {
    if (deps.health(req, res)) return;
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD", "content-length": 0 });
      res.end();
      return;
    }
    const rawPath = (req.url ?? "/").split("?", 1)[0]!;
    let code: string;
    try {
      code = decodeURIComponent(rawPath.slice(1));
    } catch {
      notFound(req, res);
      return;
    }
    if (code.length === 0 || code.length > 64 || code.includes("/")) {
      notFound(req, res);
      return;
    }

    const cached = resolver.peek(code);
    if (cached !== undefined) {
      answer(req, res, code, cached);
      return;
    }
    resolver.resolve(code).then(
      (record) => answer(req, res, code, record),
      (err: unknown) => {
        deps.logger.error({ err: err instanceof Error ? err.message : String(err) }, "resolve failed");
        unavailable(req, res);
      },
    );
  };
}
