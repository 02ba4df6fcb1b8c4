// A refusal of the API as an exception carrying the envelope's own members: the v1 envelope's
// `code` and `details`, or for the legacy API (`{error: 1, message}`, no code) the code its HTTP
// status stands for (docs/legacy-api.md), so a caller handles both generations alike.

/** The v1 error codes (docs/api.md, "Errors"); a code this SDK does not know yet still comes through. */
export type KurzErrorCode =
  | "VALIDATION_ERROR"
  | "BAD_REQUEST"
  | "UNAUTHORIZED"
  | "KEY_EXPIRED"
  | "KEY_REVOKED"
  | "FORBIDDEN"
  | "TWO_FACTOR_REQUIRED"
  | "NOT_FOUND"
  | "METHOD_NOT_ALLOWED"
  | "CONFLICT"
  | "PAYLOAD_TOO_LARGE"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "RATE_LIMIT_EXCEEDED"
  | "INTERNAL_ERROR"
  | "SERVICE_UNAVAILABLE"
  | (string & {});

const CODE_OF_STATUS: Record<number, KurzErrorCode> = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  409: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  429: "RATE_LIMIT_EXCEEDED",
  503: "SERVICE_UNAVAILABLE",
};

export class KurzApiError extends Error {
  override readonly name = "KurzApiError";
  constructor(
    /** The HTTP status. */
    readonly status: number,
    readonly code: KurzErrorCode,
    message: string,
    /** The envelope's `details` (VALIDATION_ERROR: the field tree; RATE_LIMIT_EXCEEDED: limit, window, retry_after). */
    readonly details: Record<string, unknown> | undefined,
    /** The request, as `METHOD path`. */
    readonly request: string,
  ) {
    super(message);
  }

  /** The error of a response that is not a success, from whichever envelope it carries. */
  static from(status: number, body: unknown, request: string): KurzApiError {
    const envelope = body as
      | { success?: false; error?: { code?: string; message?: string; details?: Record<string, unknown> } }
      | { error?: 1; message?: string }
      | undefined;
    const v1 = envelope && typeof envelope.error === "object" ? envelope.error : undefined;
    if (v1?.code) return new KurzApiError(status, v1.code, v1.message ?? v1.code, v1.details, request);
    const legacyMessage = envelope && "message" in envelope ? envelope.message : undefined;
    const code = CODE_OF_STATUS[status] ?? (status >= 500 ? "INTERNAL_ERROR" : "BAD_REQUEST");
    return new KurzApiError(
      status,
      code,
      legacyMessage ?? `${request} answered ${status}`,
      undefined,
      request,
    );
  }
}

/** The network failed (no answer at all), after the retries the client was allowed. */
export class KurzNetworkError extends Error {
  override readonly name = "KurzNetworkError";
  constructor(
    readonly request: string,
    options: { cause: unknown },
  ) {
    super(`${request} failed: ${(options.cause as Error)?.message ?? String(options.cause)}`, options);
  }
}
