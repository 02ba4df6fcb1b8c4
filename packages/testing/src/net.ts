import { closeSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

// A port the kernel hands out itself (listen on port 0, or the local end of an outgoing connection)
// comes from the ephemeral range, so a port found free there could be taken by any connection to
// Postgres or Redis before the service listens on it (EADDRINUSE on a stack's boot in a whole
// `./kurz test`). Ports are therefore picked at random below that range, where only another
// listener choosing the same way could collide, and checked by binding them.
//
// Other processes pick from the same range: `./kurz test` runs lanes of vitest beside the main one, and
// each starts stacks. A port found free stays unbound until its service listens, seconds later, and a
// process choosing meanwhile may find it free too (EADDRINUSE at a stack's boot).
// So each port is also claimed across processes, with a file created exclusively under CLAIMS_DIR. A
// claim older than CLAIM_TTL_MS is stale: by then its service listens (the bind check sees it) or never
// will.
const CLAIMS_DIR = process.env.KURZ_PORT_CLAIMS_DIR || join(tmpdir(), "kurz-port-claims");
const CLAIM_TTL_MS = 5 * 60_000;
const EPHEMERAL_START = ephemeralStart();
const BELOW = { from: Math.max(1024, EPHEMERAL_START - 12_000), to: EPHEMERAL_START - 1 };
const handedOut = new Set<number>();

function ephemeralStart(): number {
  try {
    const start = Number(
      readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0],
    );
    return Number.isInteger(start) ? start : 32_768;
  } catch {
    return 32_768; // Linux's default; elsewhere only the bind check below counts
  }
}

/** Claims `port` for this process unless another process claimed it less than CLAIM_TTL_MS ago. */
function claim(port: number): boolean {
  const path = join(CLAIMS_DIR, String(port));
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      closeSync(openSync(path, "wx"));
      return true;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT" && attempt === 0) {
        try {
          mkdirSync(CLAIMS_DIR, { recursive: true });
        } catch {
          return true; // no claims possible here: the bind check alone decides
        }
        continue;
      }
      // Claims cannot be made here (a read-only temporary directory): the bind check alone decides.
      if (code !== "EEXIST") return true;
      try {
        if (Date.now() - statSync(path).mtimeMs < CLAIM_TTL_MS) return false;
        unlinkSync(path);
      } catch {
        // claimed or released by another process meanwhile: try again
      }
    }
  }
  return false;
}

function release(port: number): void {
  try {
    unlinkSync(join(CLAIMS_DIR, String(port)));
  } catch {
    // already gone
  }
}

/** Whether `port` (0: any) can be bound on `host` right now; resolves the port bound, or null. */
function tryBind(port: number, host: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", (err: NodeJS.ErrnoException) =>
      err.code === "EADDRINUSE" || err.code === "EACCES" ? resolve(null) : reject(err),
    );
    server.listen(port, host, () => {
      const address = server.address();
      const bound = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(bound));
    });
  });
}

/**
 * A base below the ephemeral range whose `base + offset` ports are all free right now, or null after
 * 50 tries. Its ports are reserved (in this process) and claimed (across processes) before they are
 * checked, so that no concurrent caller gets one of them.
 */
async function reserveBelow(offsets: readonly number[], host: string): Promise<number | null> {
  const highest = BELOW.to - Math.max(...offsets);
  for (let attempt = 0; highest > BELOW.from && attempt < 50; attempt++) {
    const base = BELOW.from + Math.floor(Math.random() * (highest - BELOW.from + 1));
    const ports = offsets.map((o) => base + o);
    if (ports.some((p) => handedOut.has(p))) continue;
    for (const p of ports) handedOut.add(p);
    const claimed: number[] = [];
    for (const p of ports) {
      if (!claim(p)) break;
      claimed.push(p);
    }
    if (claimed.length === ports.length) {
      const bound = await Promise.all(ports.map((p) => tryBind(p, host)));
      if (bound.every((b) => b !== null)) return base;
    }
    for (const p of claimed) release(p);
    for (const p of ports) handedOut.delete(p);
  }
  return null;
}

/** A port free right now on 127.0.0.1, outside the kernel's ephemeral range when there is room. */
export async function getFreePort(host = "127.0.0.1"): Promise<number> {
  const port = BELOW.to - BELOW.from >= 1_000 ? await reserveBelow([0], host) : null;
  if (port !== null) return port;
  const any = await tryBind(0, host);
  if (any === null) throw new Error(`no free port on ${host}`);
  return any;
}

/**
 * A base port such that `base + offset` is free right now for every offset (a whole stack's ports from
 * one base: `./kurz up --base-port`), below the ephemeral range for the same reason as getFreePort.
 */
export async function getFreePortBase(offsets: readonly number[], host = "127.0.0.1"): Promise<number> {
  const base = await reserveBelow(offsets, host);
  if (base === null) {
    throw new Error(
      `no free range of ports for offsets ${offsets.join(",")} below ${EPHEMERAL_START} on ${host}`,
    );
  }
  return base;
}
