// What `./kurz <user command>` exits with (docs/sdk.md, "From a terminal"), so scripts can tell a
// typo from an expired key from a missing link.
import { KurzApiError } from "@kurz/sdk";

export const EXIT = {
  ok: 0,
  /** The API refused or failed (validation, conflict, rate limit, unavailable, no connection). */
  api: 1,
  /** The command line was wrong: unknown command or option, missing argument. */
  usage: 2,
  /** No profile, or the key was refused (missing, expired, revoked, lacking a scope). */
  auth: 3,
  /** The link (or other resource) does not exist. */
  notFound: 4,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

const AUTH_CODES = new Set([
  "UNAUTHORIZED",
  "KEY_EXPIRED",
  "KEY_REVOKED",
  "FORBIDDEN",
  "TWO_FACTOR_REQUIRED",
]);

/** A failure the CLI reports and exits with. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    readonly code?: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }

  static usage(message: string): CliError {
    return new CliError(message, EXIT.usage, "USAGE");
  }
}

/** The exit code and report of anything a command threw. */
export function toCliError(error: unknown): CliError {
  if (error instanceof CliError) return error;
  if (error instanceof KurzApiError) {
    const exitCode = AUTH_CODES.has(error.code)
      ? EXIT.auth
      : error.code === "NOT_FOUND"
        ? EXIT.notFound
        : EXIT.api;
    return new CliError(error.message, exitCode, error.code, error.details);
  }
  return new CliError(error instanceof Error ? error.message : String(error), EXIT.api);
}
