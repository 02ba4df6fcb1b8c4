// PollLoop: rounds back to back while there is more work, a wake instead of the poll when there is
// none, one round at a time, a wake during a round honoured after it, errors reported and survived,
// stop waiting for the round in flight. The poll is an hour, so every round after the first here is
// one the loop ran because of `more` or a wake, never because time passed.
import { afterEach, describe, expect, it } from "vitest";
import { PollLoop } from "../src/poll-loop.ts";

const HOUR = 3_600_000;

/** A round the test finishes by hand, and a record of how many started and how many ran at once. */
function controlledRounds() {
  const pending: ((more: boolean | Error) => void)[] = [];
  let active = 0;
  const seen = { started: 0, maxActive: 0 };
  const round = () =>
    new Promise<boolean>((resolve, reject) => {
      seen.started++;
      active++;
      seen.maxActive = Math.max(seen.maxActive, active);
      pending.push((more) => {
        active--;
        if (more instanceof Error) reject(more);
        else resolve(more);
      });
    });
  /** Waits until `n` rounds have started (bounded: the loop runs them on a zero-delay timer). */
  const started = async (n: number) => {
    for (let i = 0; i < 1000 && seen.started < n; i++) await new Promise((r) => setTimeout(r, 1));
    expect(seen.started).toBe(n);
  };
  /** Ends the oldest round still running. */
  const finish = (more: boolean | Error) => pending.shift()?.(more);
  return { round, seen, started, finish };
}

/** Lets zero-delay timers and promise callbacks run. */
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 1));
};

const loops: PollLoop[] = [];
afterEach(async () => {
  await Promise.all(loops.splice(0).map((l) => l.stop()));
});

function loopOf(
  rounds: ReturnType<typeof controlledRounds>,
  errors: unknown[] = [],
  wakeIntervalMs?: number,
) {
  const loop = new PollLoop({
    pollMs: HOUR,
    round: rounds.round,
    onError: (e) => errors.push(e),
    ...(wakeIntervalMs !== undefined ? { wakeIntervalMs } : {}),
  });
  loops.push(loop);
  return loop;
}

describe("PollLoop", () => {
  it("runs the first round at start and the next one at once while a round says there is more", async () => {
    const rounds = controlledRounds();
    loopOf(rounds).start();
    await rounds.started(1);
    rounds.finish(true);
    await rounds.started(2);
    rounds.finish(true);
    await rounds.started(3);
    rounds.finish(false);
    await settle();
    expect(rounds.seen.started).toBe(3); // nothing more until the poll or a wake
  });

  it("a wake runs a round instead of waiting for the poll", async () => {
    const rounds = controlledRounds();
    const loop = loopOf(rounds);
    loop.wake(); // before start: nothing to wake yet
    await settle();
    expect(rounds.seen.started).toBe(0);
    loop.start();
    await rounds.started(1);
    rounds.finish(false);
    await settle();
    loop.wake();
    await rounds.started(2);
    rounds.finish(false);
    await settle();
    expect(rounds.seen.started).toBe(2);
  });

  it("never runs two rounds at once, and a wake during a round gives one more round after it", async () => {
    const rounds = controlledRounds();
    const loop = loopOf(rounds);
    loop.start();
    await rounds.started(1);
    loop.wake();
    loop.wake();
    await settle();
    expect(rounds.seen.started).toBe(1);
    rounds.finish(false); // found nothing, but work came in while it ran
    await rounds.started(2);
    rounds.finish(false);
    await settle();
    expect(rounds.seen).toEqual({ started: 2, maxActive: 1 });
  });

  it("reports a failed round and keeps going", async () => {
    const rounds = controlledRounds();
    const errors: unknown[] = [];
    const loop = loopOf(rounds, errors);
    loop.start();
    await rounds.started(1);
    rounds.finish(new Error("database down"));
    await settle();
    expect(errors).toEqual([new Error("database down")]);
    loop.wake();
    await rounds.started(2);
    rounds.finish(false);
  });

  it("stop waits for the round in flight and starts no other", async () => {
    const rounds = controlledRounds();
    const loop = loopOf(rounds);
    loop.start();
    await rounds.started(1);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    expect(loop.stopped).toBe(true);
    await settle();
    expect(stopped).toBe(false);
    rounds.finish(true); // even with more to do
    await stopping;
    loop.wake();
    await settle();
    expect(rounds.seen.started).toBe(1);
  });

  describe("with wakeIntervalMs", () => {
    const INTERVAL = 200;

    it("a wake after a quiet spell runs at once", async () => {
      const rounds = controlledRounds();
      const loop = loopOf(rounds, [], INTERVAL);
      loop.start();
      await rounds.started(1);
      rounds.finish(false);
      await new Promise((r) => setTimeout(r, INTERVAL + 20));
      const woken = performance.now();
      loop.wake();
      await rounds.started(2);
      expect(performance.now() - woken).toBeLessThan(INTERVAL / 2);
      rounds.finish(false);
    });

    it("many wakes during and after a round give one more round, no sooner than the interval after the last start", async () => {
      const rounds = controlledRounds();
      const loop = loopOf(rounds, [], INTERVAL);
      loop.start();
      await rounds.started(1);
      const firstStart = performance.now();
      loop.wake(); // during the round
      rounds.finish(false);
      await settle();
      for (let i = 0; i < 10; i++) loop.wake(); // after it, before the interval is over
      await settle();
      expect(rounds.seen.started).toBe(1);
      for (let i = 0; i < 100 && rounds.seen.started < 2; i++) await new Promise((r) => setTimeout(r, 5));
      expect(rounds.seen.started).toBe(2);
      expect(performance.now() - firstStart).toBeGreaterThanOrEqual(INTERVAL - 5);
      rounds.finish(false);
      await new Promise((r) => setTimeout(r, INTERVAL + 20));
      expect(rounds.seen).toEqual({ started: 2, maxActive: 1 });
    });

    it("a round with more still runs the next at once (a backlog is not held back)", async () => {
      const rounds = controlledRounds();
      const loop = loopOf(rounds, [], INTERVAL);
      loop.start();
      await rounds.started(1);
      const finished = performance.now();
      rounds.finish(true);
      await rounds.started(2);
      expect(performance.now() - finished).toBeLessThan(INTERVAL / 2);
      rounds.finish(false);
    });
  });
});
