// Click ingest: bus → enrichment → ClickHouse, in batches. A batch is committed on the bus only after
// its insert succeeded. While ClickHouse is unreachable the handler pauses and retries (the bus keeps
// the batch pending, so nothing is lost); a malformed message goes to the dead-letter topic on its own.
import type { EventBus, IncomingMessage, Subscription } from "@kurz/bus";
import type { KurzClickHouse } from "@kurz/clickhouse";
import { decodeClickBatch, TOPICS } from "@kurz/contracts";
import type { Logger } from "@kurz/service-kit";
import { CLICK_BATCH_MESSAGES_MAX, clickBatchMessages } from "./click-batch-bound.ts";
import { type ClickRow, type Enrichers, toClickRow } from "./click-rows.ts";
import { type Completion, writeClicks } from "./exactly-once-insert.ts";
import { retryWhileTransient } from "./transient.ts";

export const CLICKS_GROUP = "analytics-clicks";

/**
 * Runs of a clicks partition (Kafka), each inserted as one block: 100 messages at most (aligned on
 * offsets), and 1 MiB of messages, so that a run fits in one fetch (decision 0049).
 */
export const CLICK_RUNS = { maxMessages: 100, maxBytes: 1_048_576 };

export interface ClickIngestDeps extends Enrichers {
  bus: EventBus;
  ch: KurzClickHouse;
  logger: Logger;
  /**
   * Called after the insert with the clicks whose rows it wrote: new ones, and those of a message
   * whose earlier insert was interrupted before all its rollup rows were stored (exactly-once-insert.ts).
   */
  onInserted?: (rows: ClickRow[]) => void;
  /**
   * Bus messages per handler call; each holds up to 200 clicks. Default: as many as V8's heap limit
   * leaves room for (click-batch-bound.ts), at most 100.
   */
  maxBatchSize?: number;
  /** Called after each successful ClickHouse write with its clicks and how long it took (metrics). */
  onWritten?: (write: { clicks: number; seconds: number }) => void;
  /** Called with the number of messages of each handled batch, once it is written. */
  onHandled?: (messages: number) => void;
  /** Default CLICKS_GROUP; a second group reads every click again (tests of two live consumers). */
  group?: string;
  /**
   * How a redelivered message whose insert was interrupted is completed (exactly-once-insert.ts): by
   * default "checked" in embedded chDB, which has this consumer as its one writer, and "repeat" on a
   * server. Tests that stand two consumers beside each other on chDB, as only a server allows, say "repeat".
   */
  completion?: Completion;
}

export async function subscribeClicks(deps: ClickIngestDeps): Promise<Subscription> {
  await deps.geo.open();
  const stopping = new AbortController();
  const maxBatchSize = deps.maxBatchSize ?? clickBatchMessages();
  if (maxBatchSize < CLICK_BATCH_MESSAGES_MAX)
    deps.logger.info({ maxBatchSize }, "click batches bounded by the V8 heap limit (bus messages per batch)");
  const subscription = await deps.bus.subscribe<unknown>({
    topic: TOPICS.clicks,
    group: deps.group ?? CLICKS_GROUP,
    maxBatchSize,
    maxWaitMs: 100,
    runs: CLICK_RUNS,
    handler: async (messages) => {
      // One block per run (Kafka) or per batch (Redis Streams): decision 0049.
      const blocks = new Map<string, ClickRow[]>();
      const rejected: IncomingMessage<unknown>[] = [];
      for (const message of messages) {
        const clicks = decodeClickBatch(message.value);
        if (clicks === null) {
          rejected.push(message);
          continue;
        }
        const block = message.run ?? "batch";
        const rows = blocks.get(block) ?? [];
        for (const click of clicks) rows.push(toClickRow(click, deps));
        blocks.set(block, rows);
      }
      const rows = [...blocks.values()];
      if (rejected.length > 0) await deadLetter(deps, rejected);
      if (rows.every((message) => message.length === 0)) {
        deps.onHandled?.(messages.length);
        return;
      }
      const clicks = rows.reduce((n, block) => n + block.length, 0);
      const write = async () => {
        const started = performance.now();
        const written = await writeClicks(deps.ch, rows, deps.completion);
        deps.onWritten?.({ clicks, seconds: (performance.now() - started) / 1000 });
        return written;
      };
      const result = await retryWhileTransient(write, {
        signal: stopping.signal,
        logger: deps.logger,
        what: "click insert",
      });
      if (result.duplicates > 0 || result.deletedLinks > 0) {
        deps.logger.debug(
          { duplicates: result.duplicates, deletedLinks: result.deletedLinks },
          "skipped clicks already stored or of deleted links",
        );
      }
      if (result.completed.length > 0) {
        deps.logger.info(
          { clicks: result.completed.length },
          "completed the interrupted insert of a redelivered message (rollup rows it had not stored)",
        );
      }
      if (result.rebuiltLinks > 0) {
        deps.logger.warn(
          { links: result.rebuiltLinks },
          "rebuilt the rollups of links a repeated insert left short (a crash inside a commit, decision 0049)",
        );
      }
      const written = [...result.inserted, ...result.completed];
      if (written.length > 0) deps.onInserted?.(written);
      deps.onHandled?.(messages.length);
    },
  });
  return {
    stop: async () => {
      // A handler waiting out an outage gives up now; its batch stays uncommitted and is redelivered.
      stopping.abort();
      await subscription.stop();
    },
  };
}

/** Same headers as the bus's own dead-lettering (ADR 0003), so one tool reads both. */
async function deadLetter(deps: ClickIngestDeps, messages: IncomingMessage<unknown>[]): Promise<void> {
  deps.logger.warn({ count: messages.length }, "malformed click messages sent to the dead-letter topic");
  await deps.bus.publish(
    `${TOPICS.clicks}.dlq`,
    messages.map((m) => ({
      key: m.key,
      value: m.value,
      headers: {
        ...m.headers,
        "x-dlq-error": "not a valid click batch (v1 or v2)",
        "x-dlq-original-topic": TOPICS.clicks,
        "x-dlq-original-id": m.id,
        "x-dlq-attempts": String(m.deliveryAttempt),
        "x-dlq-group": deps.group ?? CLICKS_GROUP,
        "x-dlq-failed-at": new Date().toISOString(),
      },
    })),
  );
}
