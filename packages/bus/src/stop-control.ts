/**
 * Two-stage stop shared by the adapters: `stopping` ends retries and fetching at once; `abandoned`
 * fires `drainTimeoutMs` later and gives up on a handler call that is still running, leaving its
 * messages uncommitted so that they are redelivered.
 */
export class StopControl {
  private readonly stopController = new AbortController();
  private readonly abandonController = new AbortController();
  private abandonTimer: NodeJS.Timeout | undefined;

  constructor(private readonly drainTimeoutMs: number) {}

  get stopping(): AbortSignal {
    return this.stopController.signal;
  }

  get abandoned(): AbortSignal {
    return this.abandonController.signal;
  }

  requestStop(): void {
    if (this.stopController.signal.aborted) return;
    this.stopController.abort();
    this.abandonTimer = setTimeout(() => this.abandonController.abort(), this.drainTimeoutMs);
    this.abandonTimer.unref();
  }

  /** Call once the subscription is fully stopped. */
  dispose(): void {
    clearTimeout(this.abandonTimer);
  }
}
