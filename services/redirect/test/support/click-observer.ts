// Reads the clicks topic as a consumer of its own group: what analytics would receive.
import { createBus, type EventBus, type Subscription } from "@kurz/bus";
import { type ClickEvent, decodeClickBatch, TOPICS } from "@kurz/contracts";
import { waitFor } from "@kurz/testing";
import { expect } from "vitest";

export interface ClickObserver {
  events: ClickEvent[];
  /** How many times each click id arrived. */
  counts: Map<string, number>;
  stop(): Promise<void>;
}

export async function observeClicks(opts: {
  prefix: string;
  redisUrl?: string;
  kafkaBrokers?: string[];
}): Promise<ClickObserver> {
  const bus: EventBus = createBus({
    kind: opts.kafkaBrokers ? "kafka" : "redis",
    clientId: "click-observer",
    prefix: opts.prefix,
    redisUrl: opts.redisUrl,
    kafkaBrokers: opts.kafkaBrokers,
    kafka: { sessionTimeout: 3000, rebalanceTimeout: 3000, heartbeatInterval: 300 },
  });
  const events: ClickEvent[] = [];
  const counts = new Map<string, number>();
  const sub: Subscription = await bus.subscribe<unknown>({
    topic: TOPICS.clicks,
    group: "test-click-observer",
    startFrom: "earliest",
    handler: async (batch) => {
      for (const message of batch) {
        const clicks = decodeClickBatch(message.value);
        if (clicks === null) throw new Error(`not a click batch: ${JSON.stringify(message.value)}`);
        for (const click of clicks) {
          events.push(click);
          counts.set(click.click_id, (counts.get(click.click_id) ?? 0) + 1);
        }
      }
    },
  });
  return {
    events,
    counts,
    stop: async () => {
      await sub.stop();
      await bus.close();
    },
  };
}

/**
 * Waits for `expected` clicks, then `settleMs` more so that a late copy would show, and checks that
 * each click arrived once and each link's clicks in the order they were made (click ids are
 * time-ordered).
 */
export async function expectEveryClickOnce(
  observer: ClickObserver,
  expected: number,
  opts: { timeoutMs: number; settleMs: number },
): Promise<void> {
  await waitFor(() => observer.events.length >= expected, {
    timeoutMs: opts.timeoutMs,
    description: `${expected} clicks on the bus`,
  });
  await new Promise((r) => setTimeout(r, opts.settleMs));
  expect(observer.events.length).toBe(expected);
  expect(observer.counts.size).toBe(expected);
  const byLink = new Map<string, string[]>();
  for (const e of observer.events) byLink.set(e.link_id, [...(byLink.get(e.link_id) ?? []), e.click_id]);
  for (const ids of byLink.values()) expect(ids).toEqual([...ids].sort());
}

/** Follows short links on a redirect and counts the clicks it made (answers with 302). */
export function clickMaker(baseUrl: () => string) {
  const clicks = {
    made: 0,
    async follow(code: string): Promise<number> {
      const res = await fetch(`${baseUrl()}/${code}`, { redirect: "manual" });
      await res.body?.cancel();
      if (res.status === 302) clicks.made++;
      return res.status;
    },
  };
  return clicks;
}
