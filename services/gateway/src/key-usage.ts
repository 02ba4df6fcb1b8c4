// Records when each API key was last used without a write per request: uses are folded in memory and
// written to one Redis hash (API_KEY_USAGE_HASH) once a second; management merges and persists them.
import { API_KEY_USAGE_HASH } from "@kurz/contracts";
import type { Redis } from "ioredis";

export class KeyUsageRecorder {
  private pending = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly redis: Redis,
    private readonly intervalMs = 1_000,
  ) {}

  record(keyId: string, at = Date.now()): void {
    this.pending.set(keyId, at);
  }

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const fields: string[] = [];
    for (const [id, at] of batch) fields.push(id, String(at));
    try {
      await this.redis.hset(API_KEY_USAGE_HASH, ...fields);
    } catch {
      // Keep them for the next flush unless a newer use replaced them meanwhile.
      for (const [id, at] of batch) if (!this.pending.has(id)) this.pending.set(id, at);
    }
  }
}
