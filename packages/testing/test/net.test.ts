// getFreePort and getFreePortBase pick ports below the kernel's ephemeral range, so that the local end
// of an outgoing connection (to Postgres, Redis, a service) can never take a port a stack is about to
// listen on.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { getFreePort, getFreePortBase } from "../src/net.ts";

const ephemeralStart = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").split(/\s+/)[0]);

const listenOn = (port: number) =>
  new Promise<() => Promise<void>>((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(() => new Promise((r) => server.close(() => r()))));
  });

/** Ports handed out to concurrent callers: none shared, all below the ephemeral range, all listenable. */
async function expectDistinctListenableBelowEphemeral(ports: number[]): Promise<void> {
  expect(new Set(ports).size).toBe(ports.length);
  for (const port of ports) {
    expect(port).toBeGreaterThanOrEqual(1024);
    expect(port).toBeLessThan(ephemeralStart);
  }
  const closers = await Promise.all(ports.map(listenOn));
  await Promise.all(closers.map((close) => close()));
}

describe("getFreePort", () => {
  it("hands out distinct ports below the ephemeral range, each free to listen on", async () => {
    await expectDistinctListenableBelowEphemeral(
      await Promise.all(Array.from({ length: 40 }, () => getFreePort())),
    );
  });

  it("never hands out a port something already listens on", async () => {
    const taken = await getFreePort();
    const close = await listenOn(taken);
    try {
      const others = await Promise.all(Array.from({ length: 20 }, () => getFreePort()));
      expect(others).not.toContain(taken);
    } finally {
      await close();
    }
  });
});

describe("getFreePort across processes", () => {
  it("never hands the same port to two processes picking at once", async () => {
    // Nothing listens on the ports handed out here, so only the claims keep the processes apart: 600
    // random picks from a range of about 12,000 would share a port about 15 times over without them.
    const claims = mkdtempSync(join(tmpdir(), "kurz-port-claims-test-"));
    const root = fileURLToPath(new URL("../../..", import.meta.url));
    const fixture = fileURLToPath(new URL("./fixtures/pick-ports.ts", import.meta.url));
    try {
      const outputs = await Promise.all(
        Array.from({ length: 4 }, () =>
          promisify(execFile)(process.execPath, ["--import", "tsx", fixture, "150"], {
            cwd: root,
            env: { ...process.env, KURZ_PORT_CLAIMS_DIR: claims },
          }),
        ),
      );
      const ports = outputs.flatMap(({ stdout }) => JSON.parse(stdout) as number[]);
      expect(ports).toHaveLength(600);
      expect(new Set(ports).size).toBe(600);
    } finally {
      rmSync(claims, { recursive: true, force: true });
    }
  });
});

describe("getFreePortBase", () => {
  const offsets = [0, 1, 3, 20, 21, 1002];

  it("hands out bases whose every offset is below the ephemeral range and free to listen on", async () => {
    const bases = await Promise.all(Array.from({ length: 5 }, () => getFreePortBase(offsets)));
    // Concurrent callers never share a port of their ranges.
    await expectDistinctListenableBelowEphemeral(bases.flatMap((base) => offsets.map((o) => base + o)));
  });
});
