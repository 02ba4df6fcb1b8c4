import { backoffDelay, sleep } from "./backoff.ts";
import { errorInfo } from "./logger.ts";
import type { BusLogger, IncomingMessage } from "./types.ts";

/** A fetched message; `rejected` is set when it cannot be handed to the handler at all (e.g. bad JSON). */
export interface Delivery<T> {
  message: IncomingMessage<T>;
  rejected?: string;
}

/**
 * Crashes of consumers while a message was handled alone, kept by the broker beside its delivery
 * counter (Redis). That counter also rises for every message of a batch a consumer died in, or had
 * claimed and not reached, so past `maxAttempts` it marks a suspect, not a culprit.
 */
export interface CrashLedger {
  /** How many consumers died while handling this message alone. */
  count(id: string): Promise<number>;
  /** Recorded before the message is handled alone: a crash leaves it. */
  mark(id: string): Promise<void>;
  /** Once the message is handled or dead-lettered. */
  clear(id: string): Promise<void>;
}

/** Consumers that died handling a suspect alone this many times: it is taken to kill them. */
export const SOLO_CRASHES_TO_DEAD_LETTER = 2;

export interface DeliveryPolicy<T> {
  handler: (batch: IncomingMessage<T>[]) => Promise<void>;
  maxAttempts: number;
  backoff: { initial: number; max: number };
  /** No new attempt starts once this aborts; a running one may still finish. */
  stopping: AbortSignal;
  /** The running handler call is given up on; its messages count as not completed. */
  abandoned: AbortSignal;
  deadLetter: (message: IncomingMessage<T>, why: { error: string; attempts: number }) => Promise<void>;
  /** Where the broker counts redeliveries (Redis); without one, a suspect is dead-lettered outright. */
  crashes?: CrashLedger;
  logger: BusLogger;
  logContext: object;
}

export interface DeliveryResult<T> {
  /** Messages handled or dead-lettered: safe to commit. In fetch order. */
  completed: IncomingMessage<T>[];
  /** False when the run was cut short by stop(); the rest must stay uncommitted. */
  finished: boolean;
}

type Outcome = { kind: "ok" } | { kind: "failed"; error: unknown } | { kind: "abandoned" };

/**
 * Runs the handler over a batch with the retry policy of the port: the whole batch is retried with
 * exponential backoff; when it keeps failing, messages are retried one by one so that the culprit
 * is found, dead-lettered after `maxAttempts` handler calls, and the others proceed.
 *
 * Each message keeps at least one solo attempt: the batch phase stops before any message reaches
 * its last allowed attempt, so an innocent message is never dead-lettered for its neighbour's fault.
 * The same holds across crashes: a message redelivered past `maxAttempts` without an acknowledgement
 * is handled alone, first, and dead-lettered only once consumers died handling it alone
 * SOLO_CRASHES_TO_DEAD_LETTER times (`policy.crashes`), not for crashes while it sat in a batch.
 */
export async function deliverBatch<T>(
  deliveries: Delivery<T>[],
  policy: DeliveryPolicy<T>,
): Promise<DeliveryResult<T>> {
  const completed: IncomingMessage<T>[] = [];
  const live: IncomingMessage<T>[] = [];
  const suspects: IncomingMessage<T>[] = [];
  const { crashes } = policy;

  for (const { message, rejected } of deliveries) {
    if (rejected === undefined && message.deliveryAttempt <= policy.maxAttempts) live.push(message);
    else if (rejected === undefined && crashes) suspects.push(message);
    else {
      const reason =
        rejected ?? `redelivered ${message.deliveryAttempt - 1} times without being acknowledged`;
      if (!(await deadLetter(message, reason, message.deliveryAttempt - 1, policy))) {
        return { completed, finished: false };
      }
      completed.push(message);
    }
  }
  if (crashes)
    for (const message of suspects) {
      if (!(await handleSuspect(message, crashes, policy))) return { completed, finished: false };
      completed.push(message);
    }
  if (live.length === 0) return { completed, finished: true };

  let batchCalls = 0;
  if (live.length > 1) {
    for (;;) {
      const outcome = await callHandler(
        live.map((m) => ({ ...m, deliveryAttempt: m.deliveryAttempt + batchCalls })),
        policy,
      );
      batchCalls++;
      if (outcome.kind === "ok") {
        completed.push(...live);
        return { completed, finished: true };
      }
      if (outcome.kind === "abandoned" || policy.stopping.aborted) return { completed, finished: false };
      const lastBatchAttemptLeft = live.some((m) => m.deliveryAttempt + batchCalls >= policy.maxAttempts);
      policy.logger.warn(
        { ...policy.logContext, ...errorInfo(outcome.error), batchSize: live.length, attempt: batchCalls },
        lastBatchAttemptLeft
          ? "bus: batch keeps failing, retrying messages one by one"
          : "bus: batch failed, retrying",
      );
      if (lastBatchAttemptLeft) break;
      await sleep(backoffDelay(batchCalls, policy.backoff), policy.stopping);
      if (policy.stopping.aborted) return { completed, finished: false };
    }
  }

  for (const message of live) {
    if (policy.stopping.aborted) return { completed, finished: false };
    let soloCalls = 0;
    for (;;) {
      const attempt = message.deliveryAttempt + batchCalls + soloCalls;
      const outcome = await callHandler([{ ...message, deliveryAttempt: attempt }], policy);
      soloCalls++;
      if (outcome.kind === "ok") break;
      if (outcome.kind === "abandoned") return { completed, finished: false };
      if (attempt >= policy.maxAttempts) {
        const error = errorInfo(outcome.error).error;
        if (!(await deadLetter(message, error, attempt, policy))) return { completed, finished: false };
        break;
      }
      if (policy.stopping.aborted) return { completed, finished: false };
      await sleep(backoffDelay(soloCalls, policy.backoff), policy.stopping);
      if (policy.stopping.aborted) return { completed, finished: false };
    }
    completed.push(message);
  }
  return { completed, finished: true };
}

/**
 * A message redelivered past `maxAttempts`: handled alone, with a mark that a crash leaves behind;
 * dead-lettered once such marks show it kills its consumer, or when its one call fails. False when
 * stopped before it was handled or dead-lettered.
 */
async function handleSuspect<T>(
  message: IncomingMessage<T>,
  crashes: CrashLedger,
  policy: DeliveryPolicy<T>,
): Promise<boolean> {
  // Handler calls that included it, this one (if made) among them.
  let attempts = message.deliveryAttempt - 1;
  const died = await crashes.count(message.id);
  let error: string | undefined;
  if (died >= SOLO_CRASHES_TO_DEAD_LETTER) {
    error = `redelivered ${attempts} times without being acknowledged, ${died} of them after a consumer died handling it alone`;
  } else {
    policy.logger.warn(
      { ...policy.logContext, id: message.id, attempts, diedAlone: died },
      "bus: handling alone a message redelivered past maxAttempts",
    );
    await crashes.mark(message.id);
    const outcome = await callHandler([message], policy);
    attempts++;
    if (outcome.kind === "abandoned") return false;
    if (outcome.kind === "failed") error = errorInfo(outcome.error).error;
  }
  if (error !== undefined && !(await deadLetter(message, error, attempts, policy))) return false;
  await crashes.clear(message.id);
  return true;
}

async function callHandler<T>(batch: IncomingMessage<T>[], policy: DeliveryPolicy<T>): Promise<Outcome> {
  if (policy.abandoned.aborted) return { kind: "abandoned" };
  let onAbandon: (() => void) | undefined;
  const abandoned = new Promise<Outcome>((resolve) => {
    onAbandon = () => resolve({ kind: "abandoned" });
    policy.abandoned.addEventListener("abort", onAbandon, { once: true });
  });
  const run = (async () => policy.handler(batch))().then(
    (): Outcome => ({ kind: "ok" }),
    (error: unknown): Outcome => ({ kind: "failed", error }),
  );
  try {
    return await Promise.race([run, abandoned]);
  } finally {
    if (onAbandon) policy.abandoned.removeEventListener("abort", onAbandon);
  }
}

/** Retries until the dead-letter topic accepts the message: dropping it would lose data. */
async function deadLetter<T>(
  message: IncomingMessage<T>,
  error: string,
  attempts: number,
  policy: DeliveryPolicy<T>,
): Promise<boolean> {
  for (let failures = 0; ; ) {
    try {
      await policy.deadLetter(message, { error, attempts });
      policy.logger.warn(
        { ...policy.logContext, id: message.id, attempts, error },
        "bus: message moved to the dead-letter topic",
      );
      return true;
    } catch (e) {
      failures++;
      policy.logger.error({ ...policy.logContext, ...errorInfo(e) }, "bus: dead-lettering failed, retrying");
      if (policy.stopping.aborted) return false;
      await sleep(backoffDelay(failures, policy.backoff), policy.stopping);
      if (policy.stopping.aborted) return false;
    }
  }
}
