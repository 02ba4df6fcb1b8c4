import type { IncomingMessage, OutgoingMessage } from "./types.ts";

/** Headers added to a dead-lettered message; the original headers are kept beside them. */
export const DEAD_LETTER_HEADERS = {
  error: "x-dlq-error",
  originalTopic: "x-dlq-original-topic",
  originalId: "x-dlq-original-id",
  attempts: "x-dlq-attempts",
  group: "x-dlq-group",
  failedAt: "x-dlq-failed-at",
} as const;

const MAX_ERROR_LENGTH = 1000;

export function deadLetterMessage(
  message: IncomingMessage,
  why: { error: string; attempts: number; group: string },
): OutgoingMessage {
  return {
    key: message.key,
    value: message.value,
    headers: {
      ...message.headers,
      [DEAD_LETTER_HEADERS.error]: why.error.slice(0, MAX_ERROR_LENGTH),
      [DEAD_LETTER_HEADERS.originalTopic]: message.topic,
      [DEAD_LETTER_HEADERS.originalId]: message.id,
      [DEAD_LETTER_HEADERS.attempts]: String(why.attempts),
      [DEAD_LETTER_HEADERS.group]: why.group,
      [DEAD_LETTER_HEADERS.failedAt]: new Date().toISOString(),
    },
  };
}
