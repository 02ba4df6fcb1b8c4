// Single-machine mode, the API's fast path (decision 0038): a connection whose first request is for
// the gateway (`/api`, the docs page, campaign pages: isApiPath) with a canonical path is spliced to
// the gateway at the TCP level instead of crossing this process's HTTP forwarder request by request.
// The gateway's splice listener gets one PROXY v1 header (the visitor's address and port), then the
// connection's bytes exactly as the client sent them, both ways, unparsed: one HTTP parser (the
// gateway's) reads every request on it, so two readers cannot frame a request differently.
//
// Everything else is handed to this process's HTTP server with the bytes put back: a first read
// without a whole request line, any other path, a refused (non-canonical) path, which gets the edge's
// refusal and budget as before, and any connection while the gateway's splice listener cannot be
// reached (the HTTP forwarder then answers 503 as before). Later requests on a spliced connection are
// the gateway's; those not for it it sends back to this service's return listener (service.ts).
import type { Server } from "node:http";
import { connect, type Socket } from "node:net";
import { canonicalPath, isApiPath, proxyHeaderV1 } from "@kurz/service-kit";

// A request line as node:http's parser takes it, strictly: a method token, one space, an origin-form
// target, one space, HTTP/1.0 or 1.1. Anything else is left to the HTTP server to answer.
const REQUEST_LINE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ (\/[\x21-\x7e]*) HTTP\/1\.[01]\r$/;
/** Longest first line looked at; a longer target is the HTTP server's to refuse. */
const MAX_LINE_BYTES = 8192;

/** The first request's target if the connection should be spliced to the gateway, else null. */
export function spliceTarget(firstRead: Buffer): string | null {
  const lf = firstRead.indexOf(10);
  if (lf === -1 || lf > MAX_LINE_BYTES) return null;
  const m = REQUEST_LINE.exec(firstRead.toString("latin1", 0, lf));
  if (m === null) return null;
  const target = m[1]!;
  return isApiPath(target) && canonicalPath(target).ok ? target : null;
}

export interface SpliceOptions {
  /** The gateway's splice listener (SPLICE_PORT there). */
  host: string;
  port: number;
  /** How long a new connection may stay silent before its first read (the HTTP server's headersTimeout). */
  firstReadTimeoutMs: number;
}

/** Puts the splice in front of `server`'s own handling of each new connection. */
export function spliceApiConnections(server: Server, opts: SpliceOptions): void {
  const httpListeners = server.listeners("connection") as ((socket: Socket) => void)[];
  server.removeAllListeners("connection");
  const spliced = new Set<Socket>();

  const toHttp = (socket: Socket, firstRead: Buffer | null) => {
    if (firstRead !== null) socket.unshift(firstRead);
    for (const listener of httpListeners) listener.call(server, socket);
    socket.resume();
  };

  const splice = (socket: Socket, firstRead: Buffer) => {
    const upstream = connect({ host: opts.host, port: opts.port, noDelay: true });
    upstream.write(proxyHeaderV1(socket), "latin1");
    upstream.write(firstRead);
    const clientGone = () => upstream.destroy();
    const unreachable = () => {
      socket.off("error", clientGone);
      socket.off("close", clientGone);
      upstream.destroy();
      if (!socket.destroyed) toHttp(socket, firstRead);
    };
    socket.on("error", clientGone);
    socket.on("close", clientGone);
    upstream.once("error", unreachable);
    upstream.once("connect", () => {
      upstream.off("error", unreachable);
      spliced.add(socket);
      upstream.on("error", () => socket.destroy());
      // A clean end is passed on by pipe (half-close included: the gateway answers, then ends);
      // a reset or a close without an end cuts the other side.
      upstream.on("close", () => {
        if (!upstream.readableEnded) socket.destroy();
      });
      socket.on("close", () => spliced.delete(socket));
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
  };

  server.on("connection", (socket: Socket) => {
    const idle = setTimeout(() => socket.destroy(), opts.firstReadTimeoutMs);
    const onClose = () => clearTimeout(idle);
    // Until the HTTP server or the splice has the socket, a reset must not be an uncaught error.
    const onError = () => socket.destroy();
    socket.once("close", onClose);
    socket.on("error", onError);
    socket.once("data", (firstRead: Buffer) => {
      clearTimeout(idle);
      socket.off("close", onClose);
      socket.off("error", onError);
      socket.pause();
      if (spliceTarget(firstRead) === null) toHttp(socket, firstRead);
      else splice(socket, firstRead);
    });
  });

  // A draining process (drainServers, lifecycle.ts) ends its HTTP connections; spliced ones are the
  // gateway's, which closes them when idle, and are cut here only at the drain's deadline.
  const closeAll = server.closeAllConnections.bind(server);
  server.closeAllConnections = () => {
    closeAll();
    for (const socket of spliced) socket.destroy();
  };
}
