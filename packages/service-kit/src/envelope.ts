import type { IncomingMessage, ServerResponse } from "node:http";
import { toLegacyError, toV1Error } from "./errors.ts";
import { NOSNIFF, NOSNIFF_HEADER } from "./security-headers.ts";

export type EnvelopeKind = "v1" | "legacy";
/** "auto": the older API lives under `/api/` except `/api/v1/`; everything else speaks v1. */
export type EnvelopeOption = EnvelopeKind | "auto" | ((req: IncomingMessage) => EnvelopeKind);

export interface V1Success<T, M = unknown> {
  success: true;
  data: T;
  meta?: M;
}

export const v1Success = <T, M = unknown>(data: T, meta?: M): V1Success<T, M> =>
  meta === undefined ? { success: true, data } : { success: true, data, meta };

export const legacySuccess = <T extends object>(fields: T): { error: 0 } & T => ({ error: 0, ...fields });

export function envelopeForPath(pathname: string): EnvelopeKind {
  const path = pathname.toLowerCase();
  const underApi = path === "/api" || path.startsWith("/api/");
  const underV1 = path === "/api/v1" || path.startsWith("/api/v1/");
  return underApi && !underV1 ? "legacy" : "v1";
}

export function resolveEnvelope(option: EnvelopeOption, req: IncomingMessage): EnvelopeKind {
  if (typeof option === "function") return option(req);
  if (option !== "auto") return option;
  // Express rewrites req.url inside mounted routers; originalUrl is the path the client sent.
  const url = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? "/";
  const queryAt = url.indexOf("?");
  return envelopeForPath(queryAt === -1 ? url : url.slice(0, queryAt));
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const payload = JSON.stringify(body);
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader(NOSNIFF_HEADER, NOSNIFF);
  res.setHeader("Content-Length", Buffer.byteLength(payload));
  res.end(res.req?.method === "HEAD" ? undefined : payload);
}

/** Framework-free error reply, for the bare node:http servers as well as express. */
export function sendError(res: ServerResponse, err: unknown, kind: EnvelopeKind): void {
  const { status, headers, body } = kind === "legacy" ? toLegacyError(err) : toV1Error(err);
  sendJson(res, status, body, headers);
}
