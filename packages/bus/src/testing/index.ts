export { type KafkaMock, type KafkaMockOptions, startKafkaMock } from "./kafka-mock.ts";
