// The other side of the redirect's miss-path contract: management's internal resolve endpoints,
// answering from maps the test fills. Not our code under test, so a tiny node:http server is enough.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { DomainRecord, RedirectRecord, RotatorRecord } from "@kurz/contracts";
import { callerToken } from "@kurz/service-kit";

export interface FakeManagement {
  url: string;
  links: Map<string, RedirectRecord>;
  domains: Map<string, DomainRecord>;
  rotators: Map<string, RotatorRecord>;
  /** Requests received, by path. */
  calls: string[];
  /** While true, every request gets a 503. */
  down: boolean;
  close(): Promise<void>;
}

export async function startFakeManagement(token: string): Promise<FakeManagement> {
  const state = {
    links: new Map<string, RedirectRecord>(),
    domains: new Map<string, DomainRecord>(),
    rotators: new Map<string, RotatorRecord>(),
    calls: [] as string[],
    down: false,
  };
  const server: Server = createServer((req, res) => {
    const path = req.url ?? "/";
    state.calls.push(path);
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (state.down) return reply(503, { success: false });
    if (req.headers["x-kurz-internal-token"] !== callerToken(token, "redirect"))
      return reply(401, { success: false });
    const m = /^\/internal\/(links|domains|rotators)\/resolve\/([^/?]+)$/.exec(path);
    if (!m) return reply(404, { success: false });
    const id = decodeURIComponent(m[2]!);
    const record = state[m[1] as "links" | "domains" | "rotators"].get(id);
    return record ? reply(200, record) : reply(404, { success: false });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
