export { type KafkaMock, type KafkaMockOptions, startKafkaMock } from "./kafka-mock.ts";
export {
  type KafkaOffsetsReader,
  kafkaOffsets,
  kafkaOffsetsReader,
  kafkaPartitionOf,
  type PartitionOffsets,
} from "./kafka-offsets.ts";
export { redisGroupDone } from "./redis-backlog.ts";
