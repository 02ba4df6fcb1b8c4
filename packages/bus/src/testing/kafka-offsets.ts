import { type Admin, Kafka, logLevel, Partitioners } from "kafkajs";

export interface PartitionOffsets {
  partition: number;
  /** First offset the partition still holds (the mock cluster keeps about 5 MiB per partition). */
  low: number;
  /** Offset of the next message. */
  high: number;
  /** The group's committed offset, -1 when it has none. */
  committed: number;
}

/**
 * A topic's offsets and a group's committed positions, for tests that must tell "never published",
 * "not consumed yet" and "gone from the log before it was read" apart when messages are missing.
 */
export async function kafkaOffsets(
  brokers: string[],
  topic: string,
  groupId: string,
): Promise<PartitionOffsets[]> {
  const reader = kafkaOffsetsReader(brokers);
  try {
    return await reader.read(topic, groupId);
  } finally {
    await reader.close();
  }
}

export interface KafkaOffsetsReader {
  /** As `kafkaOffsets`, over the reader's connection. */
  read(topic: string, groupId: string): Promise<PartitionOffsets[]>;
  close(): Promise<void>;
}

/**
 * `kafkaOffsets` over one admin connection, for a test that polls them: each `kafkaOffsets` call
 * connects anew (metadata, then a connection to every broker it asks). A failed read drops the
 * connection (a broker may have been down), and the next read connects again.
 */
export function kafkaOffsetsReader(brokers: string[]): KafkaOffsetsReader {
  let connected: Promise<Admin> | undefined;
  const connect = async () => {
    const admin = new Kafka({ clientId: "kurz-test-offsets", brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    return admin;
  };
  const drop = async (current: Promise<Admin>) => {
    if (connected === current) connected = undefined;
    const admin = await current.catch(() => undefined);
    await admin?.disconnect().catch(() => {});
  };
  return {
    async read(topic, groupId) {
      connected ??= connect();
      const current = connected;
      try {
        return await readOffsets(await current, topic, groupId);
      } catch (err) {
        await drop(current);
        throw err;
      }
    },
    async close() {
      if (connected) await drop(connected);
    },
  };
}

async function readOffsets(admin: Admin, topic: string, groupId: string): Promise<PartitionOffsets[]> {
  const offsets = await admin.fetchTopicOffsets(topic);
  const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
  const byPartition = new Map(committed?.partitions.map((p) => [p.partition, Number(p.offset)]) ?? []);
  return offsets
    .map((o) => ({
      partition: o.partition,
      low: Number(o.low),
      high: Number(o.high),
      committed: byPartition.get(o.partition) ?? -1,
    }))
    .sort((a, b) => a.partition - b.partition);
}

/** The partition of `partitions` that the Kafka adapter's producer (kafkajs's default) gives `key`. */
export function kafkaPartitionOf(key: string, partitions: number): number {
  const partitioner = Partitioners.DefaultPartitioner();
  return partitioner({
    topic: "any",
    partitionMetadata: Array.from({ length: partitions }, (_, partitionId) => ({
      partitionId,
      leader: 0,
      partitionErrorCode: 0,
      replicas: [0],
      isr: [0],
    })),
    message: { key, value: null },
  });
}
