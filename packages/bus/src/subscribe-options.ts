import type { SubscribeOptions } from "./types.ts";

export type ResolvedSubscribeOptions<T> = Required<Omit<SubscribeOptions<T>, "consumerName" | "runs">> & {
  consumerName: string | undefined;
  runs: SubscribeOptions<T>["runs"];
};

export function resolveSubscribeOptions<T>(opts: SubscribeOptions<T>): ResolvedSubscribeOptions<T> {
  const resolved: ResolvedSubscribeOptions<T> = {
    topic: opts.topic,
    group: opts.group,
    handler: opts.handler,
    maxBatchSize: opts.maxBatchSize ?? 500,
    maxWaitMs: opts.maxWaitMs ?? 100,
    maxAttempts: opts.maxAttempts ?? 5,
    deadLetterTopic: opts.deadLetterTopic ?? `${opts.topic}.dlq`,
    retryBackoffMs: opts.retryBackoffMs ?? { initial: 100, max: 5000 },
    consumerName: opts.consumerName,
    startFrom: opts.startFrom ?? "earliest",
    drainTimeoutMs: opts.drainTimeoutMs ?? 30_000,
    runs: opts.runs,
  };
  if (!resolved.topic || !resolved.group) throw new Error("bus: subscribe needs a topic and a group");
  if (resolved.deadLetterTopic === resolved.topic)
    throw new Error("bus: deadLetterTopic must differ from topic");
  for (const [name, v] of [
    ["maxBatchSize", resolved.maxBatchSize],
    ["maxAttempts", resolved.maxAttempts],
    ...(resolved.runs
      ? ([
          ["runs.maxMessages", resolved.runs.maxMessages],
          ["runs.maxBytes", resolved.runs.maxBytes],
        ] as const)
      : []),
  ] as const) {
    if (!Number.isInteger(v) || v < 1) throw new Error(`bus: ${name} must be a positive integer`);
  }
  return resolved;
}
