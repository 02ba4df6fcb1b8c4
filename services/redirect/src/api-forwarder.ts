// Single-machine mode (docs/decisions/0006): the redirect service owns the public port, so following a
// short link costs no Node hop, and the few paths that belong to the API side (`/api`, the docs page,
// campaign pages under `/c/`) are piped to the gateway. Plain node:http with a keep-alive agent: the
// body streams through untouched and the gateway does all the checking. In the scaled setup an edge
// proxy does this routing instead and API_UPSTREAM_URL stays unset.
import { Agent, type IncomingMessage, request, type ServerResponse } from "node:http";

// Hop-by-hop headers (RFC 9110 §7.6.1) describe this connection only and must not be forwarded.
const HOP_BY_HOP = ["connection", "keep-alive", "proxy-connection", "te", "trailer", "upgrade"];

export function isApiPath(url: string): boolean {
  return (
    url.startsWith("/api/") ||
    url === "/api" ||
    url.startsWith("/api?") ||
    url.startsWith("/c/") ||
    url === "/docs" ||
    url.startsWith("/docs/") ||
    url.startsWith("/docs?")
  );
}

export function createApiForwarder(upstreamUrl: string, clientIp: (req: IncomingMessage) => string | null) {
  const upstream = new URL(upstreamUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });

  function unavailable(req: IncomingMessage, res: ServerResponse): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const url = req.url ?? "";
    const legacy = url.startsWith("/api") && !url.startsWith("/api/v1");
    const body = JSON.stringify(
      legacy
        ? { error: 1, message: "Service temporarily unavailable" }
        : {
            success: false,
            error: { code: "SERVICE_UNAVAILABLE", message: "Service temporarily unavailable" },
          },
    );
    res.writeHead(503, {
      "content-type": "application/json; charset=utf-8",
      "content-length": Buffer.byteLength(body),
      "retry-after": "1",
    });
    res.end(body);
  }

  return function forward(req: IncomingMessage, res: ServerResponse): void {
    const headers = { ...req.headers };
    for (const name of HOP_BY_HOP) delete headers[name];
    const ip = clientIp(req);
    const prior = headers["x-forwarded-for"];
    if (ip) headers["x-forwarded-for"] = prior ? `${prior}, ${ip}` : ip;
    headers["x-forwarded-proto"] ??= "http";
    if (req.headers.host) headers["x-forwarded-host"] ??= req.headers.host;

    const upstreamReq = request(
      {
        protocol: upstream.protocol,
        hostname: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers,
        agent,
      },
      (upstreamRes) => {
        const out = { ...upstreamRes.headers };
        for (const name of HOP_BY_HOP) delete out[name];
        res.writeHead(upstreamRes.statusCode ?? 502, out);
        upstreamRes.pipe(res);
        if (!req.complete) {
          // The upstream answered before taking the whole body (a 413, say). Stop forwarding and drain the
          // rest: a body left half-read stalls the visitor's keep-alive connection for its next request.
          // The upstream socket is dropped once its answer is in, as it no longer expects more bytes.
          req.unpipe(upstreamReq);
          req.resume();
          upstreamRes.once("end", () => upstreamReq.destroy());
        }
      },
    );
    upstreamReq.on("error", () => unavailable(req, res));
    // A visitor who hangs up mid-request frees the upstream socket too.
    res.on("close", () => {
      if (!res.writableFinished) upstreamReq.destroy();
    });
    req.pipe(upstreamReq);
  };
}
