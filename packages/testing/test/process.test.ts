import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { getFreePort, startProcess, waitFor } from "../src/index.ts";

const fixture = fileURLToPath(new URL("./fixtures/echo-server.mjs", import.meta.url));

describe("getFreePort", () => {
  it("returns a port that can be bound", async () => {
    const port = await getFreePort();
    expect(port).toBeGreaterThan(0);
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", resolve);
    });
    await new Promise((resolve) => server.close(resolve));
  });
});

describe("waitFor", () => {
  it("returns the first truthy value", async () => {
    let calls = 0;
    const value = await waitFor(() => (++calls >= 3 ? { calls } : null), { intervalMs: 1 });
    expect(value).toEqual({ calls: 3 });
  });

  it("keeps polling through throws and reports the last error at the deadline", async () => {
    let calls = 0;
    await expect(
      waitFor(
        () => {
          calls += 1;
          throw new Error(`attempt ${calls} failed`);
        },
        { timeoutMs: 100, intervalMs: 10, description: "the thing" },
      ),
    ).rejects.toThrow(/waitFor for the thing timed out after 100 ms .*last error: attempt \d+ failed/);
    expect(calls).toBeGreaterThan(1);
  });

  it("says the condition stayed falsy when nothing threw", async () => {
    await expect(waitFor(() => false, { timeoutMs: 30, intervalMs: 5 })).rejects.toThrow(/stayed falsy/);
  });
});

describe("startProcess", () => {
  it("waits for readyUrl, captures stdout and stderr, and returns the exit code on stop", async () => {
    const port = await getFreePort();
    const proc = await startProcess({
      cmd: process.execPath,
      args: [fixture],
      env: { PORT: String(port) },
      readyUrl: `http://127.0.0.1:${port}/`,
    });
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe("ok");
    await waitFor(() => proc.output().includes("a line on stderr"));

    const code = await proc.stop();

    expect(code).toBe(7);
    expect(proc.output()).toContain(`fixture listening on ${port}`);
    expect(proc.output()).toContain("fixture got SIGTERM");
  });

  it("waits for a matching readyLine", async () => {
    const port = await getFreePort();
    const proc = await startProcess({
      cmd: process.execPath,
      args: [fixture],
      env: { PORT: String(port) },
      readyLine: /fixture listening on \d+/,
    });
    try {
      expect(proc.output()).toMatch(/fixture listening on \d+/);
    } finally {
      await proc.stop();
    }
  });

  it("rejects with the output when the process exits before it is ready", async () => {
    await expect(
      startProcess({
        cmd: process.execPath,
        args: ["-e", "console.error('boom: missing config'); process.exit(3)"],
        readyLine: "never printed",
      }),
    ).rejects.toThrow(/exited \(code 3\) before it was ready[\s\S]*boom: missing config/);
  });

  it("rejects clearly when the command does not exist", async () => {
    await expect(startProcess({ cmd: "/nonexistent/kurz-binary", readyLine: "x" })).rejects.toThrow(
      /could not start \/nonexistent\/kurz-binary: .*ENOENT/,
    );
  });

  it("kills the process and rejects when it is not ready in time", async () => {
    const started = startProcess({
      cmd: process.execPath,
      args: ["-e", "console.log('up but never ready'); setInterval(() => {}, 1000)"],
      readyLine: "ready!",
      // Long enough for a node start on a loaded machine to print its line (300 ms was not, at load 30).
      readyTimeoutMs: 3000,
    });
    await expect(started).rejects.toThrow(/not ready within 3000 ms[\s\S]*up but never ready/);
  });
});
