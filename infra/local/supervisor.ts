// Keeps one service process of `./kurz up` running (docs/reliability.md): a process that exits
// while the stack is not stopping is started again after a backoff that doubles from 0.5 s to 30 s and
// resets once the process has run healthy for a minute. The other services keep serving meanwhile.
import type { ChildProcess } from "node:child_process";

export interface RestartPolicy {
  /** First delay before a restart. */
  initialDelayMs: number;
  /** The delay doubles up to this. */
  maxDelayMs: number;
  /** A process that ran this long before it exited is restarted after the first delay again. */
  resetAfterMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  initialDelayMs: 500,
  maxDelayMs: 30_000,
  resetAfterMs: 60_000,
};

/** The delay before the next restart, given the previous delay and how long the process ran. */
export function nextDelay(policy: RestartPolicy, previousMs: number | null, ranForMs: number): number {
  if (previousMs === null || ranForMs >= policy.resetAfterMs) return policy.initialDelayMs;
  return Math.min(previousMs * 2, policy.maxDelayMs);
}

export interface SupervisedOptions {
  name: string;
  /** Starts the process; called again for each restart. */
  spawn: () => ChildProcess;
  /** What the console says (a restart, a crash); one line each. */
  say: (line: string) => void;
  policy?: RestartPolicy;
  now?: () => number;
  /** How long after an exit a stop() still makes it expected (default EXIT_SETTLE_MS). */
  exitSettleMs?: number;
}

/** See the exit handler in Supervised.start. */
export const EXIT_SETTLE_MS = 200;

/** One supervised process: restarted after an unexpected exit until `stop()`. */
export class Supervised {
  private proc: ChildProcess | undefined;
  private stopping = false;
  private delay: number | null = null;
  private timer: NodeJS.Timeout | undefined;
  private startedAt = 0;
  /** Starts so far, the first included (for the console and the tests). */
  starts = 0;

  constructor(private readonly opts: SupervisedOptions) {}

  get pid(): number | undefined {
    return this.proc?.pid;
  }

  start(): void {
    const now = this.opts.now ?? Date.now;
    const proc = this.opts.spawn();
    this.proc = proc;
    this.startedAt = now();
    this.starts++;
    proc.once("exit", (code, signal) => {
      if (this.stopping) return;
      const ranFor = now() - this.startedAt;
      // Ctrl-C in a terminal signals the whole process group, so a service may exit on it before
      // this process's own SIGINT handler has called stop(): the exit counts as unexpected only if
      // no stop follows within a moment.
      this.timer = setTimeout(() => {
        this.timer = undefined;
        if (!this.stopping) this.restartAfter(ranFor, signal ?? `exit ${code}`);
      }, this.opts.exitSettleMs ?? EXIT_SETTLE_MS);
    });
  }

  private restartAfter(ranFor: number, how: string): void {
    const policy = this.opts.policy ?? DEFAULT_RESTART_POLICY;
    this.delay = nextDelay(policy, this.delay, ranFor);
    this.opts.say(
      `${this.opts.name} exited unexpectedly (${how}) after ${(ranFor / 1000).toFixed(1)} s; ` +
        `restarting in ${this.delay / 1000} s (the other services keep serving)`,
    );
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.stopping) return;
      this.start();
      this.opts.say(`${this.opts.name} restarted (start ${this.starts})`);
    }, this.delay);
  }

  /**
   * No restart from now on, and an exit from now on is expected; the process is left running. The
   * stack calls it on every service at once before stopping them one by one.
   */
  stopRestarting(): void {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
  }

  /** Stops restarting, then SIGTERM, and SIGKILL after `graceMs`; resolves when the process is gone. */
  async stop(graceMs = 15_000): Promise<void> {
    this.stopRestarting();
    const proc = this.proc;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<boolean>((r) => proc.once("exit", () => r(true)));
    proc.kill("SIGTERM");
    const inTime = await Promise.race([
      exited,
      new Promise<boolean>((r) => setTimeout(() => r(false), graceMs)),
    ]);
    if (!inTime) {
      this.opts.say(`${this.opts.name} did not stop within ${graceMs / 1000} s; killing it`);
      proc.kill("SIGKILL");
      await exited;
    }
  }
}
