// The supervisor of `./kurz up` with real child processes: a process that dies is started again with
// a doubling backoff, the backoff resets after a healthy run, and stop() ends restarting for good.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { nextDelay, type RestartPolicy, Supervised } from "./supervisor.ts";

const policy: RestartPolicy = { initialDelayMs: 40, maxDelayMs: 160, resetAfterMs: 1_000 };
const node = (script: string) => () => spawn(process.execPath, ["-e", script], { stdio: "ignore" });

/**
 * A node process that runs `script` (which installs its signal handlers) and then says so on an IPC
 * channel; `ready()` resolves when the process started last has.
 */
function signalling(script: string) {
  let ready: Promise<unknown> | undefined;
  return {
    spawn: () => {
      const child = spawn(process.execPath, ["-e", `${script}; process.send("ready")`], {
        stdio: ["ignore", "ignore", "ignore", "ipc"],
      });
      ready = once(child, "message");
      return child;
    },
    ready: () => ready ?? Promise.reject(new Error("not started")),
  };
}

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await sleep(20);
  }
}

describe("nextDelay", () => {
  it("starts at the initial delay, doubles up to the maximum, and resets after a healthy run", () => {
    expect(nextDelay(policy, null, 0)).toBe(40);
    expect(nextDelay(policy, 40, 10)).toBe(80);
    expect(nextDelay(policy, 80, 10)).toBe(160);
    expect(nextDelay(policy, 160, 10)).toBe(160);
    expect(nextDelay(policy, 160, 1_000)).toBe(40);
  });
});

describe("Supervised", () => {
  it("restarts a process that keeps crashing, with growing delays, and says so", async () => {
    const lines: string[] = [];
    const crashing = new Supervised({
      name: "crashy",
      spawn: node("process.exit(3)"),
      say: (l) => lines.push(l),
      policy,
    });
    crashing.start();
    await until(() => crashing.starts >= 4);
    await crashing.stop();
    const delays = lines
      .filter((l) => l.includes("exited unexpectedly"))
      .map((l) => Number(/restarting in ([\d.]+) s/.exec(l)?.[1]) * 1000);
    expect(delays.slice(0, 3)).toEqual([40, 80, 160]);
    expect(lines[0]).toMatch(/^crashy exited unexpectedly \(exit 3\)/);
    expect(lines).toContain("crashy restarted (start 2)");
  });

  it("restarts a process killed with SIGKILL and the new one serves", async () => {
    const lines: string[] = [];
    const service = new Supervised({
      name: "svc",
      spawn: node("setInterval(() => {}, 1000)"),
      say: (l) => lines.push(l),
      policy,
    });
    service.start();
    const first = service.pid!;
    process.kill(first, "SIGKILL");
    await until(() => service.starts === 2 && service.pid !== first);
    expect(() => process.kill(service.pid!, 0)).not.toThrow();
    expect(lines[0]).toMatch(/^svc exited unexpectedly \(SIGKILL\)/);
    await service.stop();
    expect(() => process.kill(first, 0)).toThrow();
  });

  it("does not call an exit unexpected when the stop follows within the settle time (Ctrl-C reaches the whole group)", async () => {
    const lines: string[] = [];
    const child = signalling("process.on('SIGINT', () => process.exit(0)); setInterval(() => {}, 1000)");
    const service = new Supervised({
      name: "svc",
      spawn: child.spawn,
      say: (l) => lines.push(l),
      policy,
      exitSettleMs: 300,
    });
    service.start();
    await child.ready();
    const pid = service.pid!;
    process.kill(pid, "SIGINT");
    await until(() => {
      try {
        process.kill(pid, 0);
        return false;
      } catch {
        return true;
      }
    });
    service.stopRestarting(); // the stack's own SIGINT handler, a moment later
    // No restart may follow: an absence, so a time (the settle time and twice the longest backoff).
    await sleep(300 + policy.maxDelayMs * 2);
    expect(lines).toEqual([]);
    expect(service.starts).toBe(1);
  });

  it("stops for good: no restart after stop(), and a process that ignores SIGTERM is killed", async () => {
    const child = signalling("process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)");
    const stubborn = new Supervised({
      name: "stubborn",
      spawn: child.spawn,
      say: () => {},
      policy,
    });
    stubborn.start();
    await child.ready();
    const pid = stubborn.pid!;
    await stubborn.stop(300);
    expect(() => process.kill(pid, 0)).toThrow();
    await sleep(policy.maxDelayMs * 2); // no restart may follow: an absence, so a time
    expect(stubborn.starts).toBe(1);
  });
});
