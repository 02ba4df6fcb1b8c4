import { type Context, context, propagation, ROOT_CONTEXT } from "@opentelemetry/api";
import type { IncomingMessage } from "./types.ts";

/** Copies the headers and adds the active trace context (a no-op without a registered propagator). */
export function withTraceContext(headers: Record<string, string> | undefined): Record<string, string> {
  const carrier: Record<string, string> = { ...headers };
  propagation.inject(context.active(), carrier);
  return carrier;
}

/** The trace context the publisher was in, for starting a consumer span as its child or link. */
export function contextOf(message: Pick<IncomingMessage, "headers">): Context {
  return propagation.extract(ROOT_CONTEXT, message.headers);
}
