import { type Admin, Kafka, logLevel, Partitioners, type Producer } from "kafkajs";
import { encodeValue } from "../codec.ts";
import { deadLetterMessage } from "../dead-letter.ts";
import { errorInfo, stderrLogger } from "../logger.ts";
import { resolveSubscribeOptions } from "../subscribe-options.ts";
import { topicName } from "../topic-name.ts";
import { withTraceContext } from "../trace-context.ts";
import type {
  BusConfig,
  BusLogger,
  ConsumerLag,
  EventBus,
  OutgoingMessage,
  SubscribeOptions,
  Subscription,
} from "../types.ts";
import { withTimeout } from "../with-timeout.ts";
import { kafkaFetchLimits } from "./kafka-fetch.ts";
import { kafkaLogCreator } from "./kafka-log.ts";
import { CUT_MARKER_HEADER } from "./kafka-runs.ts";
import { KafkaSubscription } from "./kafka-subscription.ts";

/** Kafka adapter (kafkajs): key → partition keeps per-key order across any number of consumers. */
export class KafkaBus implements EventBus {
  readonly kind = "kafka" as const;
  readonly partitionsByKey = true;
  private readonly kafka: Kafka;
  private readonly pingKafka: Kafka;
  private readonly logger: BusLogger;
  private producer: Promise<Producer> | undefined;
  private admin: Promise<Admin> | undefined;
  private pingAdmin: Promise<Admin> | undefined;
  private readonly ensuredTopics = new Map<string, Promise<void>>();
  private readonly subscriptions = new Set<KafkaSubscription<unknown>>();
  /** The topic and group of each running subscription, for lag(). */
  private readonly subscribed = new Map<KafkaSubscription<unknown>, { topic: string; group: string }>();
  private closed = false;

  constructor(private readonly config: BusConfig) {
    const brokers = config.kafkaBrokers ?? [];
    if (brokers.length === 0) throw new Error("bus: kafka needs kafkaBrokers");
    this.logger = config.logger ?? stderrLogger;
    this.kafka = new Kafka({
      clientId: config.clientId,
      brokers,
      logLevel: logLevel.WARN,
      logCreator: kafkaLogCreator(this.logger),
    });
    // Readiness wants a quick yes/no, not kafkajs's default minute of retries.
    const pingTimeout = config.pingTimeoutMs ?? 2000;
    this.pingKafka = new Kafka({
      clientId: `${config.clientId}-ping`,
      brokers,
      connectionTimeout: Math.min(1000, pingTimeout),
      requestTimeout: pingTimeout,
      retry: { retries: 0 },
      logLevel: logLevel.NOTHING,
    });
  }

  async publish<T>(topic: string, messages: OutgoingMessage<T>[]): Promise<void> {
    this.assertOpen();
    const trace = withTraceContext(undefined);
    await this.send(
      topic,
      messages.map((m) => ({ ...m, headers: { ...m.headers, ...trace } })),
    );
  }

  async subscribe<T>(options: SubscribeOptions<T>): Promise<Subscription> {
    this.assertOpen();
    const opts = resolveSubscribeOptions(options);
    const topic = topicName(this.config.prefix, opts.topic);
    await this.ensureTopic(topic);
    const k = this.config.kafka ?? {};
    const subscription: KafkaSubscription<T> = new KafkaSubscription<T>(opts, {
      kafka: this.kafka,
      topic,
      consumerConfig: {
        groupId: topicName(this.config.prefix, opts.group),
        sessionTimeout: k.sessionTimeout ?? 30_000,
        rebalanceTimeout: k.rebalanceTimeout ?? 60_000,
        heartbeatInterval: k.heartbeatInterval ?? 3000,
        maxWaitTimeInMs: opts.maxWaitMs,
        allowAutoTopicCreation: true,
        ...kafkaFetchLimits(opts.maxFetchBytes, opts.runs),
      },
      logger: this.logger,
      deadLetter: (message, why) =>
        this.send(opts.deadLetterTopic, [deadLetterMessage(message, { ...why, group: opts.group })]),
      onStopped: () => {
        this.subscriptions.delete(subscription as KafkaSubscription<unknown>);
        this.subscribed.delete(subscription as KafkaSubscription<unknown>);
      },
      sendCutMarker: async (partition) => {
        const producer = await this.connectedProducer();
        await producer.send({
          topic,
          acks: -1,
          messages: [{ partition, value: null, headers: { [CUT_MARKER_HEADER]: "1" } }],
        });
      },
    });
    this.subscriptions.add(subscription as KafkaSubscription<unknown>);
    this.subscribed.set(subscription as KafkaSubscription<unknown>, { topic: opts.topic, group: opts.group });
    try {
      await subscription.start();
    } catch (e) {
      this.subscriptions.delete(subscription as KafkaSubscription<unknown>);
      this.subscribed.delete(subscription as KafkaSubscription<unknown>);
      throw e;
    }
    return subscription;
  }

  async ping(): Promise<void> {
    const attempt = async () => {
      this.pingAdmin ??= connected(this.pingKafka.admin());
      const admin = await this.pingAdmin;
      await admin.describeCluster();
    };
    try {
      await withTimeout(attempt(), this.config.pingTimeoutMs ?? 2000, "kafka ping");
    } catch (e) {
      const admin = this.pingAdmin;
      this.pingAdmin = undefined;
      admin?.then((a) => a.disconnect()).catch(() => {});
      throw e;
    }
  }

  async lag(): Promise<ConsumerLag[]> {
    const seen = new Map<string, { topic: string; group: string }>();
    for (const s of this.subscribed.values()) seen.set(`${s.topic}\u0000${s.group}`, s);
    if (seen.size === 0) return [];
    this.admin ??= connected(this.kafka.admin());
    const admin = await this.admin;
    return Promise.all(
      [...seen.values()].map(async ({ topic, group }) => {
        const physical = topicName(this.config.prefix, topic);
        const ends = await admin.fetchTopicOffsets(physical);
        const [committed] = await admin.fetchOffsets({
          groupId: topicName(this.config.prefix, group),
          topics: [physical],
        });
        const at = new Map(committed?.partitions.map((p) => [p.partition, Number(p.offset)]) ?? []);
        let messages = 0;
        for (const end of ends) {
          // No committed offset yet (-1): everything the partition still holds is ahead of the group.
          const position = Math.max(at.get(end.partition) ?? -1, Number(end.low));
          messages += Math.max(0, Number(end.high) - position);
        }
        return { topic, group, messages };
      }),
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    const clients = [this.producer, this.admin, this.pingAdmin];
    await Promise.all(clients.map((c) => c?.then((client) => client.disconnect()).catch(() => {})));
  }

  private async send(topic: string, messages: OutgoingMessage<unknown>[]): Promise<void> {
    if (messages.length === 0) return;
    const physical = topicName(this.config.prefix, topic);
    await this.ensureTopic(physical);
    const producer = await this.connectedProducer();
    await producer.send({
      topic: physical,
      acks: -1,
      messages: messages.map((m) => ({ key: m.key, value: encodeValue(m.value), headers: m.headers ?? {} })),
    });
  }

  private async connectedProducer(): Promise<Producer> {
    this.producer ??= connected(
      this.kafka.producer({
        idempotent: this.config.kafka?.idempotent ?? false,
        allowAutoTopicCreation: true,
        createPartitioner: Partitioners.DefaultPartitioner,
      }),
    );
    try {
      return await this.producer;
    } catch (e) {
      this.producer = undefined;
      throw e;
    }
  }

  /**
   * With `kafka.partitions` set, creates missing topics with that many partitions (a real broker's
   * auto-creation would give them one). Failure is logged, not thrown: the broker may still
   * auto-create the topic, and the mock broker does not implement CreateTopics at all.
   */
  private ensureTopic(topic: string): Promise<void> {
    const partitions = this.config.kafka?.partitions;
    if (!partitions) return Promise.resolve();
    let ensured = this.ensuredTopics.get(topic);
    if (!ensured) {
      ensured = (async () => {
        try {
          this.admin ??= connected(this.kafka.admin());
          const admin = await this.admin;
          await admin.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true });
        } catch (e) {
          this.logger.warn(
            { topic, ...errorInfo(e) },
            "bus: could not create kafka topic, relying on auto-creation",
          );
        }
      })();
      this.ensuredTopics.set(topic, ensured);
    }
    return ensured;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error("bus: closed");
  }
}

async function connected<C extends { connect(): Promise<void> }>(client: C): Promise<C> {
  await client.connect();
  return client;
}
