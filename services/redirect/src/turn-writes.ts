// Redirect responses are written at the end of the event-loop turn, all together, instead of one by
// one as each request is handled. Every write to a client's socket wakes whatever reads it (the client,
// or a proxy in front); responses that arrive back to back wake it once. Where waking a sleeping reader
// is dear (a halted vCPU costs a VM exit on the machines the benchmark runs on), this took the redirect
// from ~48k to ~62k req/s (decision 0038, docs/benchmarks/2026-11.md). A response waits at most for the rest
// of the current turn (the other requests that arrived in the same poll, each a few microseconds), and
// never behind more than MAX_PENDING others: a poll can return a thousand ready sockets.
import type { ServerResponse } from "node:http";

const NO_CACHE = "private, max-age=0";
export const MAX_PENDING = 64;

export class RedirectWrites {
  // Parallel arrays, not an object per response: this runs for every redirect.
  private responses: ServerResponse[] = [];
  private statuses: number[] = [];
  private locations: string[] = [];
  private readonly flush = () => this.writeAll();

  constructor(
    private readonly onError: (err: unknown, res: ServerResponse) => void,
    /** Runs before each burst of answers goes out (the click journal's write, click-journal.ts). */
    private readonly beforeWrite: () => void = () => {},
  ) {}

  /** Queues `status` with `Location: location` (already safe to send) for the end of this turn. */
  send(res: ServerResponse, status: number, location: string): void {
    // setImmediate runs after every I/O callback of this turn's poll, so it collects all of them.
    if (this.responses.length === 0) setImmediate(this.flush);
    this.responses.push(res);
    this.statuses.push(status);
    this.locations.push(location);
    if (this.responses.length >= MAX_PENDING) this.writeAll();
  }

  private writeAll(): void {
    if (this.responses.length === 0) return;
    this.beforeWrite();
    const { responses, statuses, locations } = this;
    this.responses = [];
    this.statuses = [];
    this.locations = [];
    for (let i = 0; i < responses.length; i++) {
      const res = responses[i]!;
      try {
        // A client gone meanwhile: Node discards the write; nothing to do here.
        res.writeHead(statuses[i]!, {
          location: locations[i]!,
          "cache-control": NO_CACHE,
          "content-length": 0,
        });
        res.end();
      } catch (err) {
        this.onError(err, res);
      }
    }
  }
}
