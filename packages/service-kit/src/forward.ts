/**
 * A small streaming HTTP forwarder on node:http, shared by the Node edges (the gateway, and the
 * redirect's API forwarder in single-machine mode). It sends exactly the path it is given — no
 * joining with a base path, no URL parsing that would resolve dot segments — so what a service
 * routed is what the upstream receives (see canonical-path.ts).
 */
import {
  Agent,
  type IncomingHttpHeaders,
  type IncomingMessage,
  request,
  type ServerResponse,
} from "node:http";

// Hop-by-hop headers (RFC 9110 §7.6.1) describe one connection only and are never forwarded.
// Transfer-Encoding stays: node:http then frames a chunked body the same way on the next hop.
/** How long an idle upstream connection is kept for reuse. */
export const IDLE_UPSTREAM_SOCKET_MS = 30_000;

const HOP_BY_HOP_SET = new Set(["connection", "keep-alive", "proxy-connection", "te", "trailer", "upgrade"]);

/** How long an answer given before the request's body was read waits for the rest of it. */
export const EARLY_ANSWER_DRAIN_MS = 5_000;

/**
 * Reads the rest of a request's body (discarding it, for at most `ms`) before an answer given early
 * (a refusal, an upstream's 413) is completed. Answering and closing (`Connection: close`) with bytes
 * still arriving makes the kernel reset the connection; on a spliced connection (decision 0038) the
 * redirect's next write of the body then fails and the answer, already on its way, is lost with it.
 * A keep-alive connection needs the body read anyway before its next request.
 */
export function drainBody(req: IncomingMessage, ms = EARLY_ANSWER_DRAIN_MS): Promise<void> {
  if (req.complete || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      req.off("end", done);
      req.off("close", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    req.on("end", done);
    req.on("close", done);
    req.resume();
  });
}

export interface ForwardOptions {
  /** Upstream origin, e.g. `http://127.0.0.1:8081`; its path, if any, is ignored. */
  target: string | URL;
  /** The request target to send upstream, verbatim (path + query). */
  path: string;
  /** The headers to send (hop-by-hop ones are removed here). */
  headers: IncomingHttpHeaders;
}

export interface Forwarder {
  (req: IncomingMessage, res: ServerResponse, options: ForwardOptions): void;
  /** Closes idle upstream connections (on shutdown). */
  close(): void;
}

/** Drops hop-by-hop headers, including any the Connection header names. */
export function endToEndHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  // Built in one pass rather than copied and then deleted from: it runs twice per forwarded request,
  // and deleting properties is a measurable share of the gateway's CPU (docs/benchmarks/2026-11.md).
  const named =
    typeof headers.connection === "string"
      ? headers.connection.split(",").map((n) => n.trim().toLowerCase())
      : null;
  const out: IncomingHttpHeaders = {};
  for (const name in headers) {
    if (HOP_BY_HOP_SET.has(name) || named?.includes(name)) continue;
    out[name] = headers[name];
  }
  return out;
}

/**
 * `onError` answers the client when the upstream cannot be reached or times out (typically 503 in
 * the path's envelope); it is called at most once per request, and never after headers were sent
 * (the connection is cut instead).
 */
export function createForwarder(opts: {
  onError: (err: Error, req: IncomingMessage, res: ServerResponse) => void;
  timeoutMs?: number;
  maxSockets?: number;
}): Forwarder {
  // Idle sockets are closed by the agent (its `timeout` applies to pooled sockets) well before the
  // upstream's keep-alive timeout (SERVER_KEEP_ALIVE_MS in lifecycle.ts) could close them under it.
  const agent = new Agent({
    keepAlive: true,
    maxSockets: opts.maxSockets ?? 256,
    timeout: IDLE_UPSTREAM_SOCKET_MS,
  });
  const timeoutMs = opts.timeoutMs ?? 30_000;

  const forward = (req: IncomingMessage, res: ServerResponse, options: ForwardOptions): void => {
    const target = typeof options.target === "string" ? new URL(options.target) : options.target;
    const headers = endToEndHeaders(options.headers);
    let failed = false;
    const fail = (err: Error) => {
      if (failed) return;
      failed = true;
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (!req.complete) req.resume();
      opts.onError(err, req, res);
    };

    const upstreamReq = request(
      {
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        method: req.method,
        path: options.path,
        headers,
        agent,
        timeout: timeoutMs,
      },
      (upstreamRes) => {
        res.writeHead(upstreamRes.statusCode ?? 502, endToEndHeaders(upstreamRes.headers));
        upstreamRes.on("error", () => res.destroy());
        if (req.complete) {
          upstreamRes.pipe(res);
          return;
        }
        // The upstream answered before taking the whole body (a 413, say). Stop forwarding; the answer
        // is completed once the rest of the body is read (drainBody). The upstream socket is dropped
        // once its answer is in, as it expects no more bytes.
        req.unpipe(upstreamReq);
        const drained = drainBody(req);
        upstreamRes.pipe(res, { end: false });
        upstreamRes.once("end", () => {
          upstreamReq.destroy();
          void drained.then(() => res.end());
        });
      },
    );
    upstreamReq.on("timeout", () =>
      upstreamReq.destroy(new Error(`upstream timed out after ${timeoutMs} ms`)),
    );
    upstreamReq.on("error", fail);
    // A client who hangs up mid-request frees the upstream socket too.
    res.on("close", () => {
      if (!res.writableFinished) upstreamReq.destroy();
    });
    req.pipe(upstreamReq);
  };
  return Object.assign(forward, { close: () => agent.destroy() });
}
