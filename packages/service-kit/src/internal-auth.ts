import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { RequestHandler, Response } from "express";
import { unauthorized } from "./errors.ts";

export const INTERNAL_TOKEN_HEADER = "x-kurz-internal-token";
export const ACCOUNT_ID_HEADER = "x-kurz-account-id";
export const KEY_ID_HEADER = "x-kurz-key-id";

/** Who the gateway says is calling; null on internal calls made on nobody's behalf. */
export interface Identity {
  accountId: string | null;
  keyId: string | null;
}

// Hashing first makes both sides the same length, so the comparison leaks neither
// the token's content nor its length.
const digest = (value: string) => createHash("sha256").update(value).digest();

export function hasInternalToken(req: IncomingMessage, token: string): boolean {
  const presented = req.headers[INTERNAL_TOKEN_HEADER];
  if (typeof presented !== "string" || presented === "") return false;
  return timingSafeEqual(digest(presented), digest(token));
}

function singleHeader(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  return typeof value === "string" && value !== "" ? value : null;
}

export function identityFrom(req: IncomingMessage): Identity {
  return { accountId: singleHeader(req, ACCOUNT_ID_HEADER), keyId: singleHeader(req, KEY_ID_HEADER) };
}

/**
 * Guards internal services: without the shared token a request is refused with 401, so
 * identity headers from anyone but the gateway are never trusted.
 */
export function requireInternal(token: string): RequestHandler {
  if (token === "") throw new Error("requireInternal: the internal token must not be empty");
  return (req, res, next) => {
    if (!hasInternalToken(req, token)) {
      next(unauthorized("Missing or invalid internal token"));
      return;
    }
    res.locals.identity = identityFrom(req);
    next();
  };
}

/**
 * The caller's account on a route behind requireInternal, or 401 when the gateway sent none.
 * (No global `res.locals` typing: services keep their own view of locals.)
 */
export function requireIdentity(res: Response): { accountId: string; keyId: string | null } {
  const identity = res.locals.identity as Identity | undefined;
  if (!identity?.accountId) throw unauthorized("No account identity on this request");
  return { accountId: identity.accountId, keyId: identity.keyId };
}
