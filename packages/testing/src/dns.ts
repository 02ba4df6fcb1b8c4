// A real DNS server on loopback for tests of domain verification: Debian's dnsmasq (package
// `dnsmasq-base`, installed by ensure_test_tools in infra/local/lib.sh) on a free port of 127.0.0.1,
// answering only from the TXT records the test sets and NXDOMAIN for every other name (no upstream).
// dnsmasq reads TXT records at start only (SIGHUP rereads hosts files, not `txt-record`), so each
// change rewrites its configuration and restarts it on the same port; a probe record carrying a
// generation number tells when the new configuration answers.

import { Resolver } from "node:dns/promises";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { isIP } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getFreePort } from "./net.ts";
import { type StartedProcess, startProcess } from "./process.ts";
import { waitFor } from "./wait.ts";

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, the form DNS_SERVERS and `Resolver.setServers` take. */
  readonly address: string;
  readonly port: number;
  /** Replaces the TXT strings of `name` (each string one record) and waits until they are served. */
  setTxt(name: string, values: string[]): Promise<void>;
  /** Removes `name`'s TXT records (the name then answers NXDOMAIN) and waits until that is served. */
  removeTxt(name: string): Promise<void>;
  /** Replaces the A/AAAA records of `name` with `addresses` (IPv4 or IPv6) and waits until served. */
  setAddresses(name: string, addresses: string[]): Promise<void>;
  stop(): Promise<void>;
}

const PROBE = "_probe.kurz-test-dns.invalid";

/** The dnsmasq binary: on PATH, or in /usr/sbin where Debian puts it (not on a non-root PATH). */
export function dnsmasqPath(): string | null {
  for (const dir of (process.env.PATH ?? "").split(":").concat("/usr/sbin", "/sbin")) {
    if (dir && existsSync(join(dir, "dnsmasq"))) return join(dir, "dnsmasq");
  }
  return null;
}

/** A TXT string dnsmasq's config can carry verbatim (quoted, one line, within DNS's 255 bytes). */
function txtString(value: string): string {
  if (!/^[\x20-\x7e]{0,255}$/.test(value) || /["\\]/.test(value)) {
    throw new Error(`TXT value not supported by the test DNS server: ${JSON.stringify(value)}`);
  }
  return `"${value}"`;
}

function txtName(name: string): string {
  if (!/^[A-Za-z0-9_.-]{1,253}$/.test(name)) throw new Error(`bad DNS name for a TXT record: ${name}`);
  return name.toLowerCase().replace(/\.$/, "");
}

export async function startTestDnsServer(initial: Record<string, string[]> = {}): Promise<TestDnsServer> {
  const binary = dnsmasqPath();
  if (!binary)
    throw new Error("dnsmasq is not installed (apt-get install dnsmasq-base; ./kurz test does it)");
  const dir = mkdtempSync(join(tmpdir(), "kurz-dns-"));
  const confPath = join(dir, "dnsmasq.conf");
  const port = await getFreePort();
  const address = `127.0.0.1:${port}`;
  const records = new Map<string, string[]>();
  const hosts = new Map<string, string[]>();
  for (const [name, values] of Object.entries(initial)) {
    values.forEach(txtString);
    records.set(txtName(name), values);
  }
  let generation = 0;
  let proc: StartedProcess | null = null;

  const resolver = new Resolver({ timeout: 500, tries: 1 });
  resolver.setServers([address]);

  function writeConfig(): void {
    const lines = [`txt-record=${PROBE},"generation=${generation}"`];
    // One line per value: several strings on one line would make one record of several chunks.
    for (const [name, values] of records) {
      for (const value of values) lines.push(`txt-record=${name},${txtString(value)}`);
    }
    for (const [name, addresses] of hosts) {
      for (const address of addresses) lines.push(`host-record=${name},${address}`);
    }
    writeFileSync(confPath, `${lines.join("\n")}\n`);
  }

  async function boot(): Promise<void> {
    generation += 1;
    writeConfig();
    proc = await startProcess({
      cmd: binary!,
      args: [
        "--keep-in-foreground",
        `--conf-file=${confPath}`,
        `--port=${port}`,
        "--listen-address=127.0.0.1",
        "--bind-interfaces",
        // No upstream and every name local: unknown names get a definite NXDOMAIN, never a forward.
        "--no-resolv",
        "--no-hosts",
        "--local=/#/",
        "--pid-file=",
        "--log-facility=-",
        "--cache-size=0",
      ],
      readyLine: "started, version",
      readyTimeoutMs: 10_000,
    });
    const want = `generation=${generation}`;
    await waitFor(async () => (await resolver.resolveTxt(PROBE)).some((r) => r.join("") === want), {
      timeoutMs: 10_000,
      description: `dnsmasq on ${address} to serve generation ${generation}`,
    });
  }

  async function restart(): Promise<void> {
    await proc?.stop("SIGTERM", 5000);
    proc = null;
    await boot();
  }

  await boot();
  return {
    address,
    port,
    async setTxt(name, values) {
      values.forEach(txtString); // refuse before changing anything
      records.set(txtName(name), values);
      await restart();
    },
    async removeTxt(name) {
      records.delete(txtName(name));
      await restart();
    },
    async setAddresses(name, addresses) {
      for (const a of addresses) {
        if (isIP(a) === 0) throw new Error(`not an IP address: ${a}`);
      }
      hosts.set(txtName(name), addresses);
      await restart();
    },
    async stop() {
      await proc?.stop("SIGTERM", 5000);
      proc = null;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
