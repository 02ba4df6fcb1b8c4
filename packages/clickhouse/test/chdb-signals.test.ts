// A process that has opened embedded chDB dies at once of a fatal signal, as it would without chDB,
// whose own handlers held it for minutes first (src/chdb-signals.ts). A process of its own for each:
// the process dies.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { expect, it } from "vitest";

const fixture = join(import.meta.dirname, "fixtures", "chdb-then-fatal.ts");
const root = join(import.meta.dirname, "../../..");
/** Far under chDB's handlers' wait (five minutes), far over a default action's (under a second). */
const DIES_WITHIN_MS = 30_000;

async function dies(how: string, nodeFlags: string[] = []) {
  const child = spawn(process.execPath, [...nodeFlags, "--import", "tsx", fixture, how], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (d: Buffer) => (output += d));
  child.stderr.on("data", (d: Buffer) => (output += d));
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  try {
    // chDB and tsx start in this time however loaded the host; the wait that matters is the next.
    await Promise.race([
      new Promise<void>((resolve) => child.stdout.on("data", () => output.includes("OPEN") && resolve())),
      exited,
    ]);
    expect(output).toContain("OPEN");
    const openAt = Date.now();
    const timer = new Promise<"running">((resolve) => setTimeout(() => resolve("running"), DIES_WITHIN_MS));
    const result = await Promise.race([exited, timer]);
    expect(result, `still running ${Date.now() - openAt} ms after chDB opened`).not.toBe("running");
    return { signal: (result as [number | null, NodeJS.Signals | null])[1], output };
  } finally {
    child.kill("SIGKILL");
  }
}

it("dies by SIGABRT at once when it runs out of V8 heap", { timeout: 120_000 }, async () => {
  const { signal, output } = await dies("heap", ["--max-old-space-size=32"]);
  expect(output).toMatch(/heap out of memory|Reached heap limit/);
  expect(signal).toBe("SIGABRT");
});

it.each(["SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE"])(
  "dies of %s at once",
  { timeout: 120_000 },
  async (sig) => {
    expect((await dies(sig)).signal).toBe(sig);
  },
);
