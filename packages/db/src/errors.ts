// The one place that reads Prisma's database errors (STYLE.md, "one home per mapping"): callers ask
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
