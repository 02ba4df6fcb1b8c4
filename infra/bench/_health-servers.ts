// The destinations of `./kurz bench health`, in a process of their own so the bench's CPU figures are the
// scheduler's alone: one HTTP server on loopback answering every Host name, counting per host the
// requests, the most in any one second (sliding), the least gap between two, and the most in flight.
// Started with fork(); it sends {port} when listening and answers {stats} with the figures.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

interface PerHost {
  /** Arrivals of the last second, oldest first. */
  recent: number[];
  last: number;
  inFlight: number;
}

const hosts = new Map<string, PerHost>();
let requests = 0;
let maxPerSecond = 0;
let maxInFlight = 0;
let minGapMs = Number.POSITIVE_INFINITY;
let gapsUnderASecond = 0;

const server = createServer((req, res) => {
  const now = performance.now();
  requests++;
  const host = (req.headers.host ?? "").replace(/:\d+$/, "");
  let h = hosts.get(host);
  if (!h) {
    h = { recent: [], last: Number.NEGATIVE_INFINITY, inFlight: 0 };
    hosts.set(host, h);
  }
  const gap = now - h.last;
  if (gap < minGapMs) minGapMs = gap;
  if (gap < 1000) gapsUnderASecond++;
  h.last = now;
  while (h.recent.length > 0 && now - h.recent[0]! >= 1000) h.recent.shift();
  h.recent.push(now);
  maxPerSecond = Math.max(maxPerSecond, h.recent.length);
  h.inFlight++;
  maxInFlight = Math.max(maxInFlight, h.inFlight);
  res.on("close", () => {
    h.inFlight--;
  });
  // A destination that takes a little while, as real ones do; HEAD is answered, so a check is one request.
  setTimeout(() => res.writeHead(200, { "content-type": "text/html" }).end(), 20);
});
server.keepAliveTimeout = 1_000;

server.listen(0, "127.0.0.1", () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});

process.on("message", (msg: { cmd?: string }) => {
  if (msg.cmd === "stats") {
    process.send?.({
      stats: {
        requests,
        hosts: hosts.size,
        maxPerSecond,
        maxInFlight,
        minGapMs: Number.isFinite(minGapMs) ? Math.round(minGapMs) : null,
        gapsUnderASecond,
      },
    });
  } else if (msg.cmd === "exit") {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  }
});
