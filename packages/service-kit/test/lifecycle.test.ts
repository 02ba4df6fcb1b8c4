import { readFileSync, realpathSync } from "node:fs";
import { get as httpGet } from "node:http";
import { fileURLToPath } from "node:url";
import { getFreePort, type StartedProcess, startProcess, waitFor } from "@kurz/testing";
import { bundleFixture } from "@kurz/testing/bundles";
import { afterEach, describe, expect, it } from "vitest";

const fixture = fileURLToPath(new URL("./fixtures/slow-service.ts", import.meta.url));
const packageDir = fileURLToPath(new URL("..", import.meta.url));
const started: StartedProcess[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((p) => p.stop("SIGKILL")));
});

async function startFixture(env: Record<string, string> = {}) {
  const port = await getFreePort();
  const proc = await startProcess({
    cmd: process.execPath,
    // Run node directly (not a CLI that relays signals) so the signal reaches the service; from a
    // bundle, as services run, rather than through tsx (a second of CPU less per start).
    args: [await bundleFixture(fixture)],
    cwd: packageDir,
    env: { PORT: String(port), OTEL_EXPORTER_OTLP_ENDPOINT: "", ...env },
    readyUrl: `http://127.0.0.1:${port}/health`,
  });
  started.push(proc);
  return { proc, url: `http://127.0.0.1:${port}` };
}

const logLines = (proc: StartedProcess) =>
  proc
    .output()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as { msg?: string; level?: string; exitCode?: number });

const hasLogged = (proc: StartedProcess, msg: string) => () => logLines(proc).some((l) => l.msg === msg);

/** GET over a brand-new TCP connection (no keep-alive pool). */
function freshGet(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpGet(url, { agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
  });
}

/** A slow request in flight, then `signals` sent one after another once the first began the stop. */
async function signalDuringSlowRequest(...signals: NodeJS.Signals[]) {
  const { proc, url } = await startFixture({ SLOW_MS: "1500" });
  const inFlight = fetch(`${url}/slow`);
  await waitFor(hasLogged(proc, "slow request started"));
  const [first, ...then] = signals;
  proc.child.kill(first);
  await waitFor(hasLogged(proc, "shutting down"));
  for (const signal of then) proc.child.kill(signal);
  return { proc, url, inFlight };
}

/** The in-flight request answered in full and the process exited 0. */
async function expectDrained(proc: StartedProcess, inFlight: Promise<Response>) {
  const res = await inFlight;
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ done: true });
  expect(await proc.exited).toBe(0);
}

describe("runService", () => {
  it("logs where it listens", async () => {
    const { proc, url } = await startFixture();
    expect(proc.output()).toContain(`slow-fixture listening on ${url}`);
  });

  // The flag's letters in /proc/<pid>/smaps: rr is madvise's MADV_RANDOM (code-read-advice.ts).
  const nodeCodeFlags = (pid: number) =>
    readFileSync(`/proc/${pid}/smaps`, "utf8")
      .split(/\n(?=[0-9a-f]+-[0-9a-f]+ )/)
      .filter((block) => block.split("\n")[0]?.endsWith(` ${realpathSync(process.execPath)}`))
      .map(
        (block) =>
          block
            .match(/^VmFlags:(.*)$/m)?.[1]
            ?.trim()
            .split(/\s+/) ?? [],
      );

  it.skipIf(process.platform !== "linux")(
    "under a memory budget (KURZ_LEAN_CODE_PAGES=1) has its code read in small pieces, and not without one (Linux only)",
    async () => {
      const lean = await startFixture({ KURZ_LEAN_CODE_PAGES: "1" });
      const plain = await startFixture();
      const leanFlags = nodeCodeFlags(lean.proc.child.pid ?? 0);
      expect(leanFlags.length).toBeGreaterThan(0);
      for (const flags of leanFlags) expect(flags).toContain("rr");
      for (const flags of nodeCodeFlags(plain.proc.child.pid ?? 0)) expect(flags).not.toContain("rr");
    },
  );

  it("on SIGTERM refuses new connections, finishes the in-flight request, closes resources and exits 0", async () => {
    const { proc, url, inFlight } = await signalDuringSlowRequest("SIGTERM");
    // A new connection, not fetch's pool: an idle keep-alive socket from start-up may still be open
    // for an instant, and that is not what "refuses new connections" is about.
    await expect(freshGet(`${url}/health`)).rejects.toThrow();

    await expectDrained(proc, inFlight);

    const messages = logLines(proc).map((l) => l.msg);
    expect(messages.indexOf("fixture resources closed")).toBeGreaterThan(
      messages.indexOf("request completed"),
    );
    expect(messages.at(-1)).toBe("stopped");
  });

  it("closes connections still open when the grace period ends, then exits 0", async () => {
    const { proc, url } = await startFixture({ GRACE_MS: "300" });
    const hanging = fetch(`${url}/hang`);
    await waitFor(hasLogged(proc, "hanging request started"));

    proc.child.kill("SIGTERM");

    await expect(hanging).rejects.toThrow();
    expect(await proc.exited).toBe(0);
    expect(logLines(proc).map((l) => l.msg)).toContain("grace period over; closing remaining connections");
    expect(logLines(proc).map((l) => l.msg)).toContain("fixture resources closed");
  });

  it("exits at once with 1 on the same signal again", async () => {
    const { proc, inFlight } = await signalDuringSlowRequest("SIGTERM", "SIGTERM");
    await expect(inFlight).rejects.toThrow(); // not drained: cut with the process
    expect(await proc.exited).toBe(1);
    expect(logLines(proc).map((l) => l.msg)).toContain("second stop signal; exiting now");
    expect(logLines(proc).map((l) => l.msg)).not.toContain("fixture resources closed");
  });

  it("goes on draining on a different signal during the stop (Ctrl-C's SIGINT, then a supervisor's SIGTERM)", async () => {
    const { proc, inFlight } = await signalDuringSlowRequest("SIGINT", "SIGTERM");
    await expectDrained(proc, inFlight);
    const messages = logLines(proc).map((l) => l.msg);
    expect(messages).not.toContain("second stop signal; exiting now");
    expect(messages).toContain("fixture resources closed");
  });

  it("takes the same signal after the logger has ended quietly: the exit is already on its way", async () => {
    const { proc } = await startFixture({ LATE_SIGNAL: "1" });
    proc.child.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    expect(proc.output()).not.toContain("SonicBoom destroyed");
    expect(proc.output()).not.toContain("dropped");
    expect(
      logLines(proc)
        .map((l) => l.msg)
        .at(-1),
    ).toBe("stopped");
  });

  it("shuts down gracefully with exit code 1 after an uncaught exception", async () => {
    const { proc, url } = await startFixture();
    expect((await fetch(`${url}/crash`)).status).toBe(200);
    expect(await proc.exited).toBe(1);
    const lines = logLines(proc);
    expect(lines.find((l) => l.msg === "uncaught exception")?.level).toBe("fatal");
    expect(lines.map((l) => l.msg)).toContain("fixture resources closed");
  });

  it("shuts down gracefully with exit code 1 after an unhandled rejection", async () => {
    const { proc, url } = await startFixture();
    expect((await fetch(`${url}/reject`)).status).toBe(200);
    expect(await proc.exited).toBe(1);
    expect(logLines(proc).map((l) => l.msg)).toContain("unhandled rejection");
    expect(logLines(proc).map((l) => l.msg)).toContain("fixture resources closed");
  });

  it("reports an error raised after the logger has ended on stderr and exits 1, instead of crashing in its handler", async () => {
    const { proc } = await startFixture({ LATE_ERROR: "1" });
    proc.child.kill("SIGTERM");
    expect(await proc.exited).toBe(1);
    expect(proc.output()).toContain("uncaught exception while exiting: fixture late error");
    expect(proc.output()).not.toContain("SonicBoom destroyed");
    expect(logLines(proc).map((l) => l.msg)).toContain("stopped");
  });

  it("drops a log line written after the logger has ended, saying so on stderr, and still exits 0", async () => {
    const { proc } = await startFixture({ LATE_LOG: "1" });
    proc.child.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    expect(proc.output()).toContain("a log line written after the logger ended was dropped while exiting");
    expect(logLines(proc).map((l) => l.msg)).toContain("stopped");
  });

  it("still drains and exits 0 when the OTLP collector is unreachable", async () => {
    const deadPort = await getFreePort();
    const { proc, url } = await startFixture({
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${deadPort}`,
      // Bounds the exporter's retries so the failed flush ends before our own 5 s cap.
      OTEL_EXPORTER_OTLP_TIMEOUT: "1000",
      SLOW_MS: "500",
    });
    const inFlight = fetch(`${url}/slow`);
    await waitFor(hasLogged(proc, "slow request started"));
    proc.child.kill("SIGTERM");
    expect((await inFlight).status).toBe(200);
    expect(await proc.exited).toBe(0);
  });
});

describe("runService start-up failures", () => {
  it("exits 1 with the list of bad variables when the config is invalid", async () => {
    await expect(
      startProcess({
        cmd: process.execPath,
        args: [await bundleFixture(fixture)],
        cwd: packageDir,
        env: { PORT: "not-a-port", BUS: "nats" },
        readyLine: "listening on",
      }),
    ).rejects.toThrow(
      /exited \(code 1\)[\s\S]*BUS: must be redis or kafka[\s\S]*PORT: must be a port number/,
    );
  });
});
