// A TCP proxy that a test can cut: every connection through it is reset and new ones are refused,
// until it opens again on the same port. Put between a service and its database, it is a network cut
// or a server that is down, deterministically (tests of how services answer an outage).
import { connect, createServer, type Server, type Socket } from "node:net";
import { getFreePort } from "./net.ts";

export interface CuttableProxy {
  /** The proxy's port on 127.0.0.1. */
  port: number;
  /** Resets every connection through the proxy and refuses new ones. */
  cut(): Promise<void>;
  /** Accepts connections again (after `cut`); a no-op while open. */
  open(): Promise<void>;
}

export async function startCuttableProxy(target: { host: string; port: number }): Promise<CuttableProxy> {
  const port = await getFreePort();
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const open = () =>
    new Promise<void>((resolve, reject) => {
      if (server?.listening) return resolve();
      server = createServer((client) => {
        const upstream = connect(target.port, target.host);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on("close", () => sockets.delete(s));
          s.on("error", () => s.destroy());
        }
        client.pipe(upstream).pipe(client);
      });
      server.once("error", reject);
      server.listen(port, "127.0.0.1", resolve);
    });
  const cut = () =>
    new Promise<void>((resolve) => {
      if (!server?.listening) return resolve();
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    });
  await open();
  return { port, cut, open };
}

/** A cuttable proxy in front of the server `url` names (a database URL), and `url` through it. */
export async function cuttableProxyFor(url: string): Promise<{ proxy: CuttableProxy; url: string }> {
  const proxied = new URL(url);
  const proxy = await startCuttableProxy({ host: proxied.hostname, port: Number(proxied.port || 5432) });
  proxied.hostname = "127.0.0.1";
  proxied.port = String(proxy.port);
  return { proxy, url: proxied.toString() };
}
