import type { IHeaders, KafkaMessage } from "kafkajs";
import { decodeValue } from "../codec.ts";
import type { Delivery } from "../deliver-batch.ts";

export function toDelivery<T>(topic: string, partition: number, m: KafkaMessage): Delivery<T> {
  const base = {
    topic,
    id: `${partition}:${m.offset}`,
    key: m.key?.toString("utf8") ?? "",
    headers: decodeHeaders(m.headers),
    // Kafka keeps no delivery count; this counts handler calls in this consumer (see ADR 0003).
    deliveryAttempt: 1,
  };
  try {
    return { message: { ...base, value: decodeValue<T>(m.value) } };
  } catch (e) {
    return {
      message: { ...base, value: (m.value?.toString("utf8") ?? null) as T },
      rejected: `undecodable message: ${e instanceof Error ? e.message : String(e)}`,
    };
  }
}

function decodeHeaders(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) out[name] = first.toString();
  }
  return out;
}
