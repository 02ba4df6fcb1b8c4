// A background worker's loop (management's outbox relay, import worker and webhook dispatcher): run one
// round of work, then the next one at once while there is more, or after `pollMs` when there is none;
// `wake()` after a commit that made new work skips the wait. One round at a time, so a worker never
// races itself. A wake that arrives while a round runs is kept: that round may have read the table
// before the new work was committed, so another round follows at once instead of after the poll.

export interface PollLoopOptions {
  /** The wait after a round that found no more work. */
  pollMs: number;
  /**
   * One round of work; resolves true when there may be more waiting (a full batch went out, a job
   * was claimed). A rejection is handed to `onError` and the loop waits `pollMs` before the next round.
   */
  round: () => Promise<boolean>;
  onError: (err: unknown) => void;
}

export class PollLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private woken = false;
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
    else this.schedule(0);
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

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.woken = false;
      this.running = this.round().then((more) => {
        this.running = null;
        if (this.state === "started") this.schedule(more || this.woken ? 0 : this.opts.pollMs);
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
