import { Kafka, logLevel, Partitioners } from "kafkajs";

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
  const admin = new Kafka({ clientId: "kurz-test-offsets", brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
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
  } finally {
    await admin.disconnect().catch(() => {});
  }
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
