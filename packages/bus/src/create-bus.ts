import { KafkaBus } from "./kafka/kafka-bus.ts";
import { RedisBus } from "./redis/redis-bus.ts";
import type { BusConfig, EventBus } from "./types.ts";

export function createBus(config: BusConfig): EventBus {
  switch (config.kind) {
    case "redis":
      return new RedisBus(config);
    case "kafka":
      return new KafkaBus(config);
    default:
      throw new Error(`bus: unknown kind ${String((config as { kind: unknown }).kind)}`);
  }
}
