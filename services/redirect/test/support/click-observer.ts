// Reads the clicks topic as a consumer of its own group: what analytics would receive.
import { createBus, type EventBus, type Subscription } from "@kurz/bus";
import { type ClickEvent, decodeClickBatch, TOPICS } from "@kurz/contracts";
import { waitFor } from "@kurz/testing";
import { expect } from "vitest";
import { metrics, type RedirectProcess } from "./redirect-process.ts";

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

/** The user agent of the marker clicks expectEveryClickOnce makes. */
const MARKER = "click-marker";

/**
 * Checks that each of the `made` clicks of `redirect` reached the bus once, and each link's in the order
 * made (click ids are time-ordered). Waits until the redirect has published them all (its metrics), then
 * follows each of `markers` once more: a link's clicks share a partition key, so once its marker is on
 * the bus, any copy of one of its earlier clicks (a publish sent twice) is there too, ahead of it. The
 * markers must cover every link clicked on a bus that partitions by key; one does on Redis Streams.
 */
export async function expectEveryClickOnce(
  observer: ClickObserver,
  redirect: Pick<RedirectProcess, "url" | "opsUrl">,
  made: number,
  opts: { markers: string[]; timeoutMs: number },
): Promise<void> {
  await waitFor(
    async () => {
      const m = await metrics(redirect);
      return m.clicks_published_total === made && m.clicks_buffered === 0 && m.clicks_spooled === 0;
    },
    { timeoutMs: opts.timeoutMs, intervalMs: 200, description: `${made} clicks published` },
  );
  for (const code of opts.markers) {
    const res = await fetch(`${redirect.url}/${code}`, {
      redirect: "manual",
      headers: { "user-agent": MARKER },
    });
    await res.body?.cancel();
    expect(res.status).toBe(302);
  }
  await clicksWith(observer, MARKER, opts.markers.length, opts.timeoutMs);
  expect(observer.events.filter((e) => e.user_agent !== MARKER)).toHaveLength(made);
  expect(observer.counts.size).toBe(made + opts.markers.length);
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

/** Waits until exactly `n` clicks made with `userAgent` are on the bus, and returns them. */
export const clicksWith = (
  observer: ClickObserver,
  userAgent: string,
  n: number,
  timeoutMs = 10_000,
): Promise<ClickEvent[]> =>
  waitFor(
    () => {
      const list = observer.events.filter((e) => e.user_agent === userAgent);
      return list.length === n ? list : undefined;
    },
    { timeoutMs, description: `${n} clicks from ${userAgent}` },
  );
