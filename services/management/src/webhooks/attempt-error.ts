// What the delivery log says about a failed attempt: a category, never the network stack's own code
// or message (`ERR_TLS_CERT_ALTNAME_INVALID`, a resolver's wording). A category is all a receiver's
// owner needs to act, and the raw detail would tell more about the network Kurz runs in than about
// the receiver. "DNS" covers a host that does not resolve and one that resolves to a non-public
// address alike, so the log cannot tell which internal names exist (the same rule as the one refusal
// of endpoints.ts).
import { OutboundRefused } from "../security/public-address-guard.ts";

/** The categories of a failed attempt without a status, plus `HTTP <status>` for a non-2xx answer. */
export const ATTEMPT_ERRORS = {
  timeout: "timeout",
  refused: "refused",
  connection: "connection",
  tls: "TLS",
  dns: "DNS",
  cannotSign: "cannot sign",
} as const;

export const httpStatusError = (status: number): string => `HTTP ${status}`;

const TLS_CODE = /TLS|SSL|CERT|EPROTO|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|SIGNATURE/;
// Resolver errors: getaddrinfo's and c-ares' codes (c-ares also has ECONNREFUSED and ETIMEOUT, told
// apart from a socket's by their syscall).
const DNS_CODE =
  /^(ENOTFOUND|EAI_AGAIN|EAI_FAIL|EAI_NONAME|EAI_NODATA|ENODATA|ESERVFAIL|EREFUSED|ENONAME|EBADNAME|EBADRESP|EFORMERR|ENOTIMP)$/;

/** The category of a network error code (and the call that failed, when known). */
export function categoryOfCode(code: string | undefined, syscall?: string): string {
  if (code === undefined) return ATTEMPT_ERRORS.connection;
  if ((syscall !== undefined && /^(query|getaddrinfo|resolve)/.test(syscall)) || DNS_CODE.test(code)) {
    return ATTEMPT_ERRORS.dns;
  }
  if (TLS_CODE.test(code)) return ATTEMPT_ERRORS.tls;
  if (code === "ECONNREFUSED") return ATTEMPT_ERRORS.refused;
  if (code === "ETIMEDOUT" || (code.startsWith("UND_ERR_") && code.endsWith("_TIMEOUT"))) {
    return ATTEMPT_ERRORS.timeout;
  }
  return ATTEMPT_ERRORS.connection;
}

interface ErrorLike {
  name?: string;
  code?: string;
  syscall?: string;
  cause?: unknown;
}

/** The category of what a send threw (fetch wraps the socket's error in `cause`, sometimes twice). */
export function categoryOfError(err: unknown): string {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e !== null && typeof e === "object"; depth++) {
    if (e instanceof OutboundRefused) return ATTEMPT_ERRORS.dns;
    const { name, code, syscall, cause } = e as ErrorLike;
    if (name === "TimeoutError" || name === "AbortError") return ATTEMPT_ERRORS.timeout;
    if (typeof code === "string") return categoryOfCode(code, syscall);
    e = cause;
  }
  return ATTEMPT_ERRORS.connection;
}

const CATEGORIES = new Set<string>(Object.values(ATTEMPT_ERRORS));

/**
 * What the log shows for a stored error: a category as stored, or the category of a row written in
 * an older form (`refused: <host> …` by the address check, `connection failed (<code>)`).
 */
export function publicAttemptError(stored: string | null): string | null {
  if (stored === null || CATEGORIES.has(stored) || /^HTTP \d{3}$/.test(stored)) return stored;
  if (stored.startsWith("cannot sign")) return ATTEMPT_ERRORS.cannotSign;
  if (stored.startsWith("refused:")) return ATTEMPT_ERRORS.dns;
  const code = /^connection failed \(([^)]*)\)$/.exec(stored)?.[1];
  return categoryOfCode(code);
}
