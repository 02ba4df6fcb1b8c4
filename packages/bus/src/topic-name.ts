/** Physical topic/stream name for a logical topic; the prefix isolates tests and tenants. */
export function topicName(prefix: string | undefined, topic: string): string {
  return prefix ? `${prefix}.${topic}` : topic;
}
