export { type KafkaMock, type KafkaMockOptions, startKafkaMock } from "./kafka-mock.ts";
export { kafkaOffsets, type PartitionOffsets } from "./kafka-offsets.ts";
