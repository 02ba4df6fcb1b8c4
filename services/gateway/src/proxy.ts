// Forwards authenticated requests to the owning service with the identity the gateway established.
// Identity headers from the client are stripped first: only the gateway may assert them.
import type { IncomingMessage, ServerResponse } from "node:http";
import { INTERNAL_HEADERS } from "@kurz/contracts";
import { createProxyServer } from "http-proxy-3";

export function createForwarder(opts: {
  internalToken: string;
  onError: (err: Error, req: IncomingMessage, res: ServerResponse) => void;
}) {
  const proxy = createProxyServer({ xfwd: true, proxyTimeout: 30_000, timeout: 30_000 });
  proxy.on("error", (err, req, res) => {
    if (res && "writeHead" in res) opts.onError(err as Error, req as IncomingMessage, res as ServerResponse);
  });

  return function forward(
    req: IncomingMessage,
    res: ServerResponse,
    target: string,
    identity?: { accountId: string; keyId: string },
  ): void {
    for (const name of Object.keys(req.headers)) if (name.startsWith("x-kurz-")) delete req.headers[name];
    if (identity) {
      req.headers[INTERNAL_HEADERS.token] = opts.internalToken;
      req.headers[INTERNAL_HEADERS.accountId] = identity.accountId;
      req.headers[INTERNAL_HEADERS.keyId] = identity.keyId;
    }
    proxy.web(req, res, { target });
  };
}
