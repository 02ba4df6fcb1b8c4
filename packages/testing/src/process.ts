import { type ChildProcess, spawn } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, onTestFailed } from "vitest";

export interface StartProcessOptions {
  cmd: string;
  args?: string[];
  /** Added to the parent's environment. */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Ready once a GET here answers 200. */
  readyUrl?: string;
  /** Ready once a stdout or stderr line matches. */
  readyLine?: RegExp | string;
  /** Default 30 000 ms (tsx compiles on first start). */
  readyTimeoutMs?: number;
}

export interface StartedProcess {
  readonly pid: number;
  readonly child: ChildProcess;
  /** stdout and stderr interleaved as received. */
  output(): string;
  /** Resolves with the exit code (null when killed by a signal) once the process has ended. */
  readonly exited: Promise<number | null>;
  /**
   * Sends `signal` (default SIGTERM) and waits for the exit; SIGKILL after `killAfterMs`
   * (default 15 000). Resolves with the exit code, null if it died by a signal.
   */
  stop(signal?: NodeJS.Signals, killAfterMs?: number): Promise<number | null>;
}

const live = new Set<StartedProcess>();
// Services started inside the test process (the in-process stack) keep their logs here instead.
const liveInProcess = new Map<string, () => string>();

/** The failed tests whose processes' output was printed: once each, however many hooks ask. */
const printedFor = new WeakSet<object>();

/**
 * Call at the top level of a test file that starts processes in beforeAll (useStack calls it where it
 * starts a stack): when a test fails, the output of every process still running is printed, once.
 * Processes started inside a test body do this on their own.
 */
export function printProcessOutputOnFailure(): void {
  afterEach((context) => {
    if (context.task.result?.state !== "fail" || printedFor.has(context.task)) return;
    printedFor.add(context.task);
    for (const proc of live) printOutput(proc);
    for (const [name, output] of liveInProcess)
      console.error(`----- logs of ${name} -----\n${output()}\n----- end of ${name} -----`);
  });
}

/**
 * Registers the logs of a service running inside the test process, printed like a process's output
 * when a test fails (see printProcessOutputOnFailure). Returns the function that unregisters it.
 */
export function trackInProcessOutput(name: string, output: () => string): () => void {
  liveInProcess.set(name, output);
  return () => liveInProcess.delete(name);
}

function printOutput(proc: StartedProcess): void {
  console.error(
    `----- output of pid ${proc.pid} -----\n${proc.output()}\n----- end of pid ${proc.pid} -----`,
  );
}

function lineMatches(line: string, pattern: RegExp | string): boolean {
  return typeof pattern === "string" ? line.includes(pattern) : pattern.test(line);
}

async function answers200(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
    await res.body?.cancel();
    return res.status === 200;
  } catch {
    return false;
  }
}

export async function startProcess(options: StartProcessOptions): Promise<StartedProcess> {
  const child = spawn(options.cmd, options.args ?? [], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const chunks: string[] = [];
  let lineSeen = false;
  let partial = { stdout: "", stderr: "" };
  const onData = (stream: "stdout" | "stderr") => (data: Buffer) => {
    const text = data.toString("utf8");
    chunks.push(text);
    if (options.readyLine === undefined || lineSeen) return;
    const lines = (partial[stream] + text).split("\n");
    partial = { ...partial, [stream]: lines.pop() ?? "" };
    if (lines.some((line) => lineMatches(line, options.readyLine!))) lineSeen = true;
  };
  child.stdout!.on("data", onData("stdout"));
  child.stderr!.on("data", onData("stderr"));

  let exitCode: number | null | undefined;
  let spawnError: Error | undefined;
  const exited = new Promise<number | null>((resolve) => {
    // "close" rather than "exit": it waits for the pipes to drain, so output() is complete.
    child.once("close", (code) => {
      exitCode = code;
      resolve(code);
    });
    // A failed spawn (e.g. ENOENT) may never emit "exit".
    child.once("error", (err) => {
      spawnError = err;
      exitCode ??= null;
      resolve(null);
    });
  });

  const proc: StartedProcess = {
    pid: child.pid ?? -1,
    child,
    output: () => chunks.join(""),
    exited,
    async stop(signal: NodeJS.Signals = "SIGTERM", killAfterMs = 15_000) {
      if (exitCode === undefined) {
        child.kill(signal);
        const killer = setTimeout(() => child.kill("SIGKILL"), killAfterMs);
        try {
          await exited;
        } finally {
          clearTimeout(killer);
        }
      }
      live.delete(proc);
      return exitCode ?? null;
    },
  };
  live.add(proc);
  void exited.then(() => live.delete(proc));

  try {
    onTestFailed(() => printOutput(proc));
  } catch {
    // Not inside a test body (e.g. beforeAll): see printProcessOutputOnFailure.
  }

  const timeoutMs = options.readyTimeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (spawnError)
      throw new Error(`could not start ${options.cmd}: ${spawnError.message}`, { cause: spawnError });
    if (exitCode !== undefined) {
      throw new Error(
        `${options.cmd} exited (code ${exitCode}) before it was ready. Output:\n${proc.output()}`,
      );
    }
    const lineReady = options.readyLine === undefined || lineSeen;
    const urlReady = options.readyUrl === undefined || (await answers200(options.readyUrl));
    if (lineReady && urlReady) return proc;
    if (Date.now() > deadline) {
      await proc.stop("SIGKILL");
      throw new Error(`${options.cmd} was not ready within ${timeoutMs} ms. Output:\n${proc.output()}`);
    }
    await sleep(50);
  }
}
