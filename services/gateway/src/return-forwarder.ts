// The way back for a spliced connection (decision 0038). The redirect splices a connection to this
// service when its first request is an API one; the browser may then send a short link or a dashboard
// page on the same connection. Such a request goes, as the client sent it (path included: the redirect
// routes and refuses it as it would have on its public port), to the redirect's return listener. The
// address the PROXY header stated is appended to X-Forwarded-For, and that listener believes one hop
// more than the redirect's TRUST_PROXY, so clicks and password budgets see the visitor.
import type { IncomingMessage, ServerResponse } from "node:http";
import { INTERNAL_HEADERS } from "@kurz/contracts";
import { createForwarder } from "@kurz/service-kit";
import type { GatewayConfig } from "./config.ts";
import { clientHeaders } from "./proxy.ts";

export function createReturnForwarder(
  config: Pick<GatewayConfig, "SPLICE_RETURN_URL" | "SPLICE_TRUST_PROXY">,
  onError: (err: Error, req: IncomingMessage, res: ServerResponse) => void,
) {
  const http = createForwarder({ onError });
  const target = config.SPLICE_RETURN_URL ? new URL(config.SPLICE_RETURN_URL) : null;
  // The redirect believes an edge's request id only behind a trusted hop (edge-click.ts); with one, the
  // header is the edge's and passes on, with none it is the client's and is dropped like every x-kurz-*.
  const keep = config.SPLICE_TRUST_PROXY > 0 ? INTERNAL_HEADERS.edgeRequest : undefined;

  return function sendBack(req: IncomingMessage, res: ServerResponse, url: string): void {
    if (target === null) throw new Error("SPLICE_RETURN_URL is not set");
    http(req, res, { target, path: url, headers: clientHeaders(req, keep) });
  };
}
