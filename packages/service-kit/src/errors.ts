// The wire codes and their statuses are contracts'; re-exported so services need one import for errors.
import { ERROR_STATUS, type ErrorCode, validationDetails } from "@kurz/contracts";
import { z } from "zod";

export { ERROR_STATUS, type ErrorCode };

export interface V1ErrorBody {
  success: false;
  error: { code: ErrorCode; message: string; details?: unknown };
}

export interface LegacyErrorBody {
  error: 1;
  message: string;
}

export interface ErrorResponse<B> {
  status: number;
  headers: Record<string, string>;
  body: B;
}

export interface ApiErrorOptions {
  /** Sent with the error response, e.g. `Allow` on 405 or `Retry-After` on 429. */
  headers?: Record<string, string>;
  cause?: unknown;
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly details: unknown;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    code: ErrorCode,
    message: string,
    details?: unknown,
    options: ApiErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.details = details;
    this.headers = options.headers ?? {};
  }
}

/** An ApiError with the status the code implies (see ERROR_STATUS). */
export const apiError = (code: ErrorCode, message: string, details?: unknown, options?: ApiErrorOptions) =>
  new ApiError(ERROR_STATUS[code], code, message, details, options);

export const isApiError = (err: unknown): err is ApiError => err instanceof ApiError;

// `instanceof` fails when two copies of zod are loaded, so fall back to the shape.
export function isZodError(err: unknown): err is z.core.$ZodError {
  if (err instanceof z.core.$ZodError) return true;
  return (
    typeof err === "object" &&
    err !== null &&
    (err as { name?: unknown }).name === "ZodError" &&
    Array.isArray((err as { issues?: unknown }).issues)
  );
}

const MAX_ISSUES_IN_MESSAGE = 5;

/** One line naming the failing fields, so legacy clients (no `details`) still learn what was wrong. */
export function summarizeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const parts = issues.slice(0, MAX_ISSUES_IN_MESSAGE).map((issue) => {
    const path = issue.path.map(String).join(".");
    return path ? `${path}: ${issue.message}` : issue.message;
  });
  if (issues.length > MAX_ISSUES_IN_MESSAGE) parts.push(`and ${issues.length - MAX_ISSUES_IN_MESSAGE} more`);
  return parts.join("; ");
}

export function validation(error: z.core.$ZodError | string, details?: unknown): ApiError {
  if (typeof error === "string") return apiError("VALIDATION_ERROR", error, details);
  return apiError(
    "VALIDATION_ERROR",
    `Invalid request: ${summarizeIssues(error.issues)}`,
    details ?? validationDetails(error),
    {
      cause: error,
    },
  );
}

export const badRequest = (message: string, details?: unknown) => apiError("BAD_REQUEST", message, details);
export const unauthorized = (message = "Missing or invalid API key") => apiError("UNAUTHORIZED", message);
export const keyExpired = (message = "API key has expired") => apiError("KEY_EXPIRED", message);
export const keyRevoked = (message = "API key has been revoked") => apiError("KEY_REVOKED", message);
export const forbidden = (message = "Forbidden", details?: unknown) =>
  apiError("FORBIDDEN", message, details);
export const notFound = (message = "Not found") => apiError("NOT_FOUND", message);
export const conflict = (message: string) => apiError("CONFLICT", message);
export const payloadTooLarge = (message = "Request body is too large") =>
  apiError("PAYLOAD_TOO_LARGE", message);
export const unsupportedMediaType = (message = "Request body must be application/json") =>
  apiError("UNSUPPORTED_MEDIA_TYPE", message);
export const internalError = (message = "Internal server error") => apiError("INTERNAL_ERROR", message);
export const serviceUnavailable = (message = "Service unavailable") =>
  apiError("SERVICE_UNAVAILABLE", message);
/** A dependency (the database) is down or restarting: 503 with Retry-After, so that clients retry. */
export const dependencyUnavailable = (cause?: unknown) =>
  apiError("SERVICE_UNAVAILABLE", "Temporarily unavailable; retry shortly", undefined, {
    headers: { "Retry-After": "1" },
    cause,
  });

export function methodNotAllowedError(allowed: readonly string[]): ApiError {
  return apiError("METHOD_NOT_ALLOWED", "Method not allowed", undefined, {
    headers: { Allow: allowed.map((m) => m.toUpperCase()).join(", ") },
  });
}

export interface RateLimitDetails {
  limit: number;
  window: string;
  retry_after: number;
}

export function rateLimitExceeded(details: RateLimitDetails, message = "Rate limit exceeded"): ApiError {
  return apiError("RATE_LIMIT_EXCEEDED", message, details, {
    headers: { "Retry-After": String(details.retry_after), "X-RateLimit-Remaining": "0" },
  });
}

const CODE_BY_CLIENT_STATUS: Record<number, ErrorCode> = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  409: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  429: "RATE_LIMIT_EXCEEDED",
};

interface HttpErrorLike {
  status?: unknown;
  statusCode?: unknown;
  type?: unknown;
  expose?: unknown;
  message?: unknown;
}

/**
 * Maps anything thrown to the ApiError the client sees. Errors from express/body-parser
 * (http-errors) keep their 4xx meaning; what `isUnavailable` recognises (a service's dependency
 * being down, e.g. @kurz/db's isDatabaseUnavailable) is a 503 with Retry-After; everything unknown
 * becomes a bare 500 so no internal message or stack reaches the client.
 */
export function toApiError(err: unknown, isUnavailable?: (err: unknown) => boolean): ApiError {
  if (isApiError(err)) return err;
  if (isUnavailable?.(err)) return dependencyUnavailable(err);
  if (isZodError(err)) return validation(err);
  if (typeof err === "object" && err !== null) {
    const e = err as HttpErrorLike;
    if (e.type === "entity.parse.failed") {
      return apiError("VALIDATION_ERROR", "Malformed JSON in request body", undefined, { cause: err });
    }
    if (e.type === "entity.too.large") return payloadTooLarge();
    const status = typeof e.status === "number" ? e.status : e.statusCode;
    if (typeof status === "number" && status >= 400 && status < 500) {
      const code = CODE_BY_CLIENT_STATUS[status] ?? "BAD_REQUEST";
      const message = e.expose === true && typeof e.message === "string" ? e.message : defaultMessage(code);
      return apiError(code, message, undefined, { cause: err });
    }
    if (status === 503) return serviceUnavailable();
  }
  return internalError();
}

/**
 * Logs a request's failure once it is answered with `answered` (toApiError's): a 5xx the code threw on
 * purpose (a 503 saying e-mail is not configured) is a refusal the operator may want to see (warn); any
 * other 5xx is an error. 4xx answers are the caller's mistakes and the access log has them.
 */
export function logRequestFailure(
  logger: { error: (o: object, m: string) => void; warn: (o: object, m: string) => void },
  err: unknown,
  answered: ApiError,
  reqId: unknown,
): void {
  if (answered.status < 500) return;
  if (isApiError(err) && answered.status !== 500)
    logger.warn({ reqId, reason: err.message }, "request refused");
  else logger.error({ err, reqId }, "request failed");
}

function defaultMessage(code: ErrorCode): string {
  return code.charAt(0) + code.slice(1).toLowerCase().replaceAll("_", " ");
}

export function toV1Error(err: unknown): ErrorResponse<V1ErrorBody> {
  const apiError = toApiError(err);
  const error: V1ErrorBody["error"] = { code: apiError.code, message: apiError.message };
  if (apiError.details !== undefined) error.details = apiError.details;
  return { status: apiError.status, headers: apiError.headers, body: { success: false, error } };
}

export function toLegacyError(err: unknown): ErrorResponse<LegacyErrorBody> {
  const apiError = toApiError(err);
  return {
    status: apiError.status,
    headers: apiError.headers,
    body: { error: 1, message: apiError.message },
  };
}
