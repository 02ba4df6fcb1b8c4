/**
 * The PROXY protocol, version 1 (HAProxy's text header, haproxy.org/download/2.8/doc/proxy-protocol.txt),
 * between the public origin and the gateway in single-machine mode (decision 0038): the redirect
 * splices an API connection to the gateway at the TCP level and states the visitor's address and port
 * in one line before the first byte of the connection.
 *
 * Written here rather than taken from npm: proxy-protocol-js (MIT, the maintained one) parses the whole
 * input as a string (the bytes after the header would be decoded, and a binary body corrupted), does
 * not bound the header to the spec's 107 bytes and accepts any non-space text as an address. What is
 * needed is one line, parsed strictly; version 2 (binary) is not spoken.
 */
import type { Server } from "node:http";
import { isIPv4, isIPv6, type Socket } from "node:net";

/** The longest v1 header, CRLF included (the spec's bound). */
export const PROXY_V1_MAX_BYTES = 107;

const SIGNATURE = "PROXY ";
const PORT = /^(?:0|[1-9][0-9]{0,4})$/;

export type ProxyHeader =
  | { kind: "incomplete" }
  | { kind: "invalid"; reason: string }
  /** `address` null: the sender did not know it (`PROXY UNKNOWN`); the socket's own peer stands. */
  | {
      kind: "ok";
      address: string | null;
      port: number | null;
      family: "IPv4" | "IPv6" | null;
      length: number;
    };

const invalid = (reason: string): ProxyHeader => ({ kind: "invalid", reason });

/** The header at the start of `buf`, if complete; `length` is its size in bytes, CRLF included. */
export function parseProxyHeaderV1(buf: Buffer): ProxyHeader {
  const seen = Math.min(buf.length, SIGNATURE.length);
  if (buf.toString("latin1", 0, seen) !== SIGNATURE.slice(0, seen)) return invalid("not a PROXY header");
  const lf = buf.indexOf(10, 0);
  if (lf === -1 || lf >= PROXY_V1_MAX_BYTES) {
    return buf.length >= PROXY_V1_MAX_BYTES ? invalid("header too long") : { kind: "incomplete" };
  }
  if (lf === 0 || buf[lf - 1] !== 13) return invalid("header must end with CRLF");
  const line = buf.toString("latin1", SIGNATURE.length, lf - 1);
  const fields = line.split(" ");
  if (fields[0] === "UNKNOWN") return { kind: "ok", address: null, port: null, family: null, length: lf + 1 };
  if (fields.length !== 5) return invalid("malformed header");
  const [proto, src, dst, srcPort, dstPort] = fields as [string, string, string, string, string];
  const family = proto === "TCP4" ? "IPv4" : proto === "TCP6" ? "IPv6" : null;
  if (family === null) return invalid("unknown protocol");
  const isIp = family === "IPv4" ? isIPv4 : isIPv6;
  if (!isIp(src) || !isIp(dst)) return invalid("malformed address");
  if (!PORT.test(srcPort) || !PORT.test(dstPort) || Number(srcPort) > 65535 || Number(dstPort) > 65535)
    return invalid("malformed port");
  return { kind: "ok", address: src, port: Number(srcPort), family, length: lf + 1 };
}

/** The header stating `socket`'s peer and local end; `PROXY UNKNOWN` when either is not an IP. */
export function proxyHeaderV1(socket: Socket): string {
  const { remoteAddress: src, remotePort: srcPort, localAddress: dst, localPort: dstPort } = socket;
  if (src && dst && srcPort !== undefined && dstPort !== undefined) {
    if (isIPv4(src) && isIPv4(dst)) return `PROXY TCP4 ${src} ${dst} ${srcPort} ${dstPort}\r\n`;
    // A dual-stack listener reports IPv4 peers as ::ffff:a.b.c.d, a valid IPv6 address: sent as it is.
    if (isIPv6(src) && isIPv6(dst)) return `PROXY TCP6 ${src} ${dst} ${srcPort} ${dstPort}\r\n`;
  }
  return "PROXY UNKNOWN\r\n";
}

const PROXIED = Symbol("kurz.proxied");

/** Whether the connection arrived on a PROXY-protocol listener (see acceptProxyProtocol). */
export function isProxiedSocket(socket: Socket): boolean {
  return (socket as Socket & { [PROXIED]?: true })[PROXIED] === true;
}

/**
 * Makes `server` (which must not be public: whoever reaches it can state any address) read a PROXY v1
 * header at the start of every connection before HTTP. The stated peer becomes the socket's
 * `remoteAddress`/`remotePort`, so everything that reads the client's address (proxy-addr, logs) sees
 * the visitor; the connection is marked (isProxiedSocket). A connection without a valid header within
 * `timeoutMs` is closed without an answer: its sender is not the splice.
 */
export function acceptProxyProtocol(server: Server, timeoutMs = 5_000): void {
  const listeners = server.listeners("connection") as ((socket: Socket) => void)[];
  server.removeAllListeners("connection");
  const handOver = (socket: Socket) => {
    for (const listener of listeners) listener.call(server, socket);
  };
  server.on("connection", (socket: Socket) => {
    let buffered: Buffer = Buffer.alloc(0);
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    // Until the HTTP server has the socket, a reset must not be an uncaught error.
    const onError = () => socket.destroy();
    const done = () => {
      clearTimeout(timer);
      socket.off("data", onData);
      socket.off("close", done);
      socket.off("error", onError);
    };
    const onData = (chunk: Buffer) => {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      const header = parseProxyHeaderV1(buffered);
      if (header.kind === "incomplete") return;
      done();
      if (header.kind === "invalid") {
        socket.destroy();
        return;
      }
      socket.pause();
      if (header.address !== null) {
        // Own properties shadow net.Socket's getters (which ask the kernel for the real peer).
        Object.defineProperties(socket, {
          remoteAddress: { value: header.address, configurable: true },
          remotePort: { value: header.port, configurable: true },
          remoteFamily: { value: header.family, configurable: true },
        });
      }
      Object.defineProperty(socket, PROXIED, { value: true });
      if (buffered.length > header.length) socket.unshift(buffered.subarray(header.length));
      handOver(socket);
      socket.resume();
    };
    socket.on("data", onData);
    socket.on("close", done);
    socket.on("error", onError);
  });
}
