export { type KafkaMock, type KafkaMockOptions, startKafkaMock } from "./kafka-mock.ts";
export {
  type KafkaOffsetsReader,
  kafkaOffsets,
  kafkaOffsetsReader,
  kafkaPartitionOf,
  type PartitionOffsets,
} from "./kafka-offsets.ts";
export { redisGroupDone, redisStreamLength } from "./redis-backlog.ts";
