// Sends management the click totals of links that got clicks, so links.clicks_count and
// accounts.total_clicks follow within a second or two. Totals are absolute (read back from the
// rollup), so a redelivered or reordered message cannot make a count wrong; management keeps the
// larger of what it has and what it receives. Links whose totals could not be sent stay pending.
import type { EventBus } from "@kurz/bus";
import type { KurzClickHouse } from "@kurz/clickhouse";
import { type ClickTotals, TOPICS } from "@kurz/contracts";
import type { Logger } from "@kurz/service-kit";

const CHUNK = 500;

export class ClickTotalsPublisher {
  /** link_id → account_id */
  private pending = new Map<string, string>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly deps: { bus: EventBus; ch: KurzClickHouse; logger: Logger; intervalMs: number },
  ) {}

  touch(clicks: readonly { link_id: string; account_id: string }[]): void {
    for (const c of clicks) this.pending.set(c.link_id, c.account_id);
  }

  start(): void {
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.flush()
        .catch((err) =>
          this.deps.logger.warn({ err: (err as Error).message }, "click totals not sent; will retry"),
        )
        .finally(() => {
          this.running = null;
          this.schedule();
        });
    }, this.deps.intervalMs);
  }

  /** Publishes the totals of every pending link; on failure they stay pending. */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      const entries = [...batch];
      for (let i = 0; i < entries.length; i += CHUNK) {
        const chunk = entries.slice(i, i + CHUNK);
        // Aliases differ from the column names: ClickHouse would apply an alias in WHERE too.
        const rows = await this.deps.ch.query<{ link: string; account: string; total: number }>(
          `SELECT toString(link_id) AS link, toString(account_id) AS account, toUInt64(sum(clicks)) AS total
           FROM link_daily
           WHERE account_id IN {accounts:Array(UUID)} AND link_id IN {links:Array(UUID)}
           GROUP BY account_id, link_id`,
          { accounts: [...new Set(chunk.map(([, a]) => a))], links: chunk.map(([l]) => l) },
        );
        if (rows.length > 0) {
          const message: ClickTotals = {
            v: 1,
            totals: rows.map((r) => ({ link_id: r.link, account_id: r.account, clicks: Number(r.total) })),
          };
          await this.deps.bus.publish(TOPICS.clickTotals, [{ key: rows[0]!.account, value: message }]);
        }
        for (const [link] of chunk) batch.delete(link);
      }
    } finally {
      // What was not sent goes back, unless a newer touch already re-added it.
      for (const [link, account] of batch) if (!this.pending.has(link)) this.pending.set(link, account);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    try {
      await this.flush();
    } catch (err) {
      this.deps.logger.warn({ err: (err as Error).message }, "click totals not sent at shutdown");
    }
  }
}
