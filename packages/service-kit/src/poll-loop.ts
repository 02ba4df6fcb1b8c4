// A background worker's loop (management's outbox relay, import worker and webhook dispatcher): run one
// round of work, then the next one at once while there is more, or after `pollMs` when there is none;
// `wake()` after a commit that made new work skips the wait. One round at a time, so a worker never
// races itself. A wake that arrives while a round runs is kept: that round may have read the table
// before the new work was committed, so another round follows at once instead of after the poll.
// With `wakeIntervalMs`, woken rounds start at most that often (decision 0044): under a stream of
// wakes (one per create) the work of many commits goes out in one round instead of one round each,
// while a wake after a quiet spell still runs at once.

export interface PollLoopOptions {
  /** The wait after a round that found no more work. */
  pollMs: number;
  /**
   * One round of work; resolves true when there may be more waiting (a full batch went out, a job
   * was claimed). A rejection is handed to `onError` and the loop waits `pollMs` before the next round.
   */
  round: () => Promise<boolean>;
  onError: (err: unknown) => void;
  /**
   * The least time from the start of one round to the start of a round run because of a wake
   * (default 0: at once). A round that said there is more still runs at once: that is a backlog.
   */
  wakeIntervalMs?: number;
}

export class PollLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private woken = false;
  /** When the last round started (performance.now()); -Infinity before the first. */
  private lastStartAt = Number.NEGATIVE_INFINITY;
  private state: "idle" | "started" | "stopped" = "idle";

  constructor(private readonly opts: PollLoopOptions) {}

  /** Runs the first round at once. */
  start(): void {
    if (this.state !== "idle") return;
    this.state = "started";
    this.schedule(0);
  }

  /** New work was committed: run a round now rather than at the next poll. */
  wake(): void {
    if (this.state !== "started") return;
    if (this.running) this.woken = true;
    // A round already due at least as early (a wake's, or the first) stands.
    else if (this.timer === null || this.timerDueAt > this.wakeDueAt()) this.schedule(this.wakeDelay());
  }

  /** True once stop() was called: a long round checks it to hand its work back early. */
  get stopped(): boolean {
    return this.state === "stopped";
  }

  /** No round starts after this; resolves when the running one (if any) has ended. */
  async stop(): Promise<void> {
    this.state = "stopped";
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private timerDueAt = 0;

  private wakeDueAt(): number {
    return this.lastStartAt + (this.opts.wakeIntervalMs ?? 0);
  }

  private wakeDelay(): number {
    return Math.max(0, this.wakeDueAt() - performance.now());
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timerDueAt = performance.now() + ms;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.woken = false;
      this.lastStartAt = performance.now();
      this.running = this.round().then((more) => {
        this.running = null;
        if (this.state !== "started") return;
        this.schedule(more ? 0 : this.woken ? this.wakeDelay() : this.opts.pollMs);
      });
    }, ms);
  }

  private async round(): Promise<boolean> {
    try {
      return await this.opts.round();
    } catch (err) {
      this.opts.onError(err);
      return false;
    }
  }
}
