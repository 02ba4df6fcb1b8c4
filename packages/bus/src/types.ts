export interface OutgoingMessage<T = unknown> {
  key: string;
  value: T;
  headers?: Record<string, string>;
}

export interface IncomingMessage<T = unknown> {
  /** Logical topic name, without the bus prefix. */
  topic: string;
  key: string;
  value: T;
  headers: Record<string, string>;
  /** Redis: the stream entry id. Kafka: `${partition}:${offset}`. */
  id: string;
  /** 1 on first delivery; counts handler calls that included this message (see ADR 0003). */
  deliveryAttempt: number;
  /**
   * Kafka with `runs`: `${partition}:${first offset}-${last offset}` of the run this message belongs
   * to, the same for every consumer of the partition (decision 0049). Unset otherwise.
   */
  run?: string;
}

export interface SubscribeOptions<T = unknown> {
  topic: string;
  group: string;
  /** The whole batch succeeds or throws; a throw retries it (see `maxAttempts`). */
  handler: (batch: IncomingMessage<T>[]) => Promise<void>;
  /** Default 500. */
  maxBatchSize?: number;
  /** How long to wait to fill a batch once a first message is there. Default 100. */
  maxWaitMs?: number;
  /** Handler calls per message before it is dead-lettered. Default 5. */
  maxAttempts?: number;
  /** Logical topic name of the dead-letter topic. Default `${topic}.dlq`. */
  deadLetterTopic?: string;
  /** Default { initial: 100, max: 5000 }. */
  retryBackoffMs?: { initial: number; max: number };
  consumerName?: string;
  /** Where a group that does not exist yet starts reading. Default "earliest". */
  startFrom?: "earliest" | "latest";
  /**
   * How long stop() waits for the in-flight handler call before abandoning the batch uncommitted
   * (it is then redelivered). Default 30000.
   */
  drainTimeoutMs?: number;
  /**
   * Kafka only (Redis Streams ignores it): hand out each partition's messages in runs cut by a rule
   * that reads only the log (aligned offsets, bytes, cut markers), so that every consumer cuts the
   * same runs; a handler call holds whole runs, and an unfinished run at the end of the log waits for
   * its end, which the consumer appends as a cut marker once it has caught up (decision 0049).
   */
  runs?: { maxMessages: number; maxBytes: number };
  /**
   * The most message bytes a consumer reads ahead of its handler, so that what it holds follows the
   * process's memory bound. Kafka: a fetch's byte limit (kafkajs keeps one fetch per broker and fetches
   * again once the handler has had its messages), each partition 1 MiB of it at most, or with `runs`
   * four runs' bytes, to which the fetch is then raised if it is smaller (a run always fits in one
   * fetch). Redis Streams: a batch asks for as many entries as fit at the size entries had so far,
   * and stops filling once its entries hold this many characters. Default: a sixteenth of V8's heap
   * limit, within 1–10 MiB (subscribe-options.ts).
   */
  maxFetchBytes?: number;
}

export interface Subscription {
  /** Finishes the in-flight batch (bounded by drainTimeoutMs), commits what completed, stops. */
  stop(): Promise<void>;
}

export interface ConsumerLag {
  /** The topic and group as subscribed (without the bus prefix). */
  topic: string;
  group: string;
  messages: number;
}

export interface EventBus {
  readonly kind: "redis" | "kafka";
  /**
   * Kafka: true, a message's key picks its partition, so only messages of one key keep their order.
   * Redis Streams: false, a topic is one stream that keeps publish order whatever the keys.
   */
  readonly partitionsByKey: boolean;
  /** Resolves once durably accepted (Redis: XADD done; Kafka: acks from all in-sync replicas). */
  publish<T>(topic: string, messages: OutgoingMessage<T>[]): Promise<void>;
  /** Resolves once the consumer is running (Kafka: has joined its group, bounded wait). */
  subscribe<T>(opts: SubscribeOptions<T>): Promise<Subscription>;
  /** Throws when the broker is unreachable. */
  ping(): Promise<void>;
  /**
   * How far each of this bus's running subscriptions is behind its topic: messages not yet delivered
   * to the group plus those delivered and not yet acknowledged (Redis), or the sum over partitions of
   * the newest offset less the group's committed one (Kafka). For metrics; throws when the broker is
   * unreachable.
   */
  lag(): Promise<ConsumerLag[]>;
  /** Stops subscriptions, flushes, disconnects. */
  close(): Promise<void>;
}

export interface BusLogger {
  info(o: object, m?: string): void;
  warn(o: object, m?: string): void;
  error(o: object, m?: string): void;
}

export interface BusConfig {
  kind: "redis" | "kafka";
  clientId: string;
  /** Prepended to every topic/stream name (and Kafka group id) as `${prefix}.${name}`. */
  prefix?: string;
  redisUrl?: string;
  kafkaBrokers?: string[];
  kafka?: {
    sessionTimeout?: number;
    rebalanceTimeout?: number;
    heartbeatInterval?: number;
    /** Default false: librdkafka's mock broker cannot answer InitProducerId. */
    idempotent?: boolean;
    /** When set, missing topics are created with this many partitions (real Kafka only). */
    partitions?: number;
  };
  redis?: {
    /**
     * Trimming starts only when a stream holds more entries than this, and then removes only
     * entries every group has acknowledged. Default 1_000_000.
     */
    maxLen?: number;
    /** Pending entries idle this long are reclaimed from their (presumed dead) consumer. Default 60000. */
    claimIdleMs?: number;
  };
  /** How long ping() waits before declaring the broker unreachable. Default 2000. */
  pingTimeoutMs?: number;
  logger?: BusLogger;
}
