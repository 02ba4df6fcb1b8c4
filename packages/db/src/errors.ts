// The one place that reads Prisma's database errors (one home per mapping): callers ask
// what went wrong in their terms and map it to their own answer (409, 404, a retry).
// Prisma reports a unique violation as P2002 from a model query but as P2010 ("raw query failed") from
// $queryRaw/$executeRaw; through the pg driver adapter both carry the adapter's cause
// (`meta.driverAdapterError.cause`, kind "UniqueConstraintViolation", with the constraint that failed).

interface AdapterCause {
  kind?: string;
  originalCode?: string;
  constraint?: { index?: string; fields?: string[] };
}

const codeOf = (err: unknown): string | undefined =>
  typeof err === "object" && err !== null ? (err as { code?: unknown }).code?.toString() : undefined;

const adapterCause = (err: unknown): AdapterCause | undefined =>
  (err as { meta?: { driverAdapterError?: { cause?: AdapterCause } } } | null)?.meta?.driverAdapterError
    ?.cause;

/**
 * A unique constraint refused the write (Postgres 23505), from a model or a raw query. With `target`,
 * only when the constraint that failed is the index of that name (e.g. "links_short_code_key") or
 * covers that column: a write can violate one unique index for a reason the caller handles and another
 * for one it must not swallow.
 */
export function isUniqueViolation(err: unknown, target?: string): boolean {
  const cause = adapterCause(err);
  const unique =
    codeOf(err) === "P2002" ||
    cause?.kind === "UniqueConstraintViolation" ||
    cause?.originalCode === "23505" ||
    codeOf(err) === "23505"; // a pg error that did not pass through Prisma
  if (!unique) return false;
  if (target === undefined) return true;
  const constraint = cause?.constraint ?? constraintOfPgError(err);
  return constraint?.index === target || (constraint?.fields?.includes(target) ?? false);
}

const constraintOfPgError = (err: unknown): AdapterCause["constraint"] => {
  const name = (err as { constraint?: unknown } | null)?.constraint;
  return typeof name === "string" ? { index: name } : undefined;
};

/**
 * A foreign key refused the write (Postgres 23503): the row it points at is gone, typically deleted by
 * a concurrent request after the caller checked it. From a model or a raw query, or straight from pg.
 */
export function isForeignKeyViolation(err: unknown): boolean {
  const cause = adapterCause(err);
  return (
    codeOf(err) === "P2003" ||
    cause?.kind === "ForeignKeyConstraintViolation" ||
    cause?.originalCode === "23503" ||
    codeOf(err) === "23503"
  );
}

/** A record the statement needed was gone (P2025: update or delete of a row deleted meanwhile). */
export function isRecordMissing(err: unknown): boolean {
  return codeOf(err) === "P2025";
}

/**
 * The SQLSTATE a statement failed with (e.g. one a function raised on purpose, `KZ403`), from a raw
 * query through Prisma or straight from pg; undefined for any other error.
 */
export function sqlStateOf(err: unknown): string | undefined {
  const cause = adapterCause(err);
  if (cause?.originalCode) return cause.originalCode;
  const code = codeOf(err);
  // Prisma's own codes (P1000–P6999) have the same shape as a SQLSTATE but are not one.
  return code !== undefined && /^[0-9A-Z]{5}$/.test(code) && !/^P[1-9]\d{3}$/.test(code) ? code : undefined;
}

// Prisma's codes for a database it cannot reach or lost mid-request: can't reach (P1001), timed out
// (P1002, P1008), closed the connection (P1017), no pooled connection in time (P2024).
const UNAVAILABLE_PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024"]);
const UNAVAILABLE_ADAPTER_KINDS = new Set([
  "DatabaseNotReachable",
  "ConnectionClosed",
  "SocketTimeout",
  "TooManyConnections",
]);
// SQLSTATEs of a server going away or not yet back: class 08 (connection exception), admin or crash
// shutdown (57P01, 57P02), starting up (57P03), too many connections (53300).
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123]|53300)$/;
// What node-postgres and the socket throw when no server answers (no SQLSTATE then).
const UNAVAILABLE_ERRNO = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH"]);
const PG_CONNECTION_LOST = /^Connection terminated( unexpectedly| due to connection timeout)?$/;

/**
 * The database is down, restarting or unreachable: a transient outage rather than a bug, which an API
 * answers 503 with Retry-After so that clients retry (the fault suite's Postgres restart found a create
 * whose connection the server terminated answered 500). From Prisma (model or raw queries, through the
 * pg adapter) or straight from the pg pool.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (typeof err !== "object" || err === null) return false;
  const code = codeOf(err) ?? (err as { errorCode?: unknown }).errorCode?.toString();
  if (code !== undefined && (UNAVAILABLE_PRISMA_CODES.has(code) || UNAVAILABLE_ERRNO.has(code))) return true;
  const cause = adapterCause(err);
  if (cause?.kind !== undefined && UNAVAILABLE_ADAPTER_KINDS.has(cause.kind)) return true;
  const state = sqlStateOf(err);
  if (state !== undefined && UNAVAILABLE_SQLSTATE.test(state)) return true;
  const message = (err as { message?: unknown }).message;
  return typeof message === "string" && PG_CONNECTION_LOST.test(message);
}
