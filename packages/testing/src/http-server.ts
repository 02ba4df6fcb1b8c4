import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A local HTTP server a test stands up (a page whose title is fetched, a webhook receiver, a site). */
export interface LocalHttpServer {
  server: Server;
  port: number;
  /** `http://<host>:<port>` */
  origin: string;
  /** Closes open connections too, so that a keep-alive client cannot hold the close. */
  close(): Promise<void>;
}

/** Serves `handler` on `host` (127.0.0.1 unless given) at a port the kernel picks. */
export async function startHttpServer(
  handler: RequestListener,
  host = "127.0.0.1",
): Promise<LocalHttpServer> {
  const server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    origin: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
