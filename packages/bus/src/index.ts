export { createBus } from "./create-bus.ts";
export { DEAD_LETTER_HEADERS } from "./dead-letter.ts";
export { topicName } from "./topic-name.ts";
export { contextOf } from "./trace-context.ts";
export type {
  BusConfig,
  BusLogger,
  ConsumerLag,
  EventBus,
  IncomingMessage,
  OutgoingMessage,
  SubscribeOptions,
  Subscription,
} from "./types.ts";
export { TimeoutError, withTimeout } from "./with-timeout.ts";
