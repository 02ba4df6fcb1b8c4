// Small self-contained pages for visitors; JSON when the client asks for it.
import type { IncomingMessage, ServerResponse } from "node:http";

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

function page(title: string, message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>body{font:16px/1.5 system-ui,sans-serif;color:#1a1410;background:#faf8f5;display:grid;place-items:center;min-height:90vh;margin:0}main{max-width:28rem;padding:2rem;text-align:center}h1{font-size:1.5rem;margin:0 0 .5rem}p{color:#5c534b}</style></head><body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></main></body></html>`;
}

const wantsJson = (req: IncomingMessage) => (req.headers.accept ?? "").includes("application/json");

export function sendStatusPage(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  code: string,
  title: string,
  message: string,
  extraHeaders: Record<string, string> = {},
): void {
  const json = wantsJson(req);
  const body = json ? JSON.stringify({ success: false, error: { code, message } }) : page(title, message);
  res.writeHead(status, {
    "content-type": json ? "application/json; charset=utf-8" : "text/html; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
    ...extraHeaders,
  });
  res.end(req.method === "HEAD" ? undefined : body);
}

export const notFound = (req: IncomingMessage, res: ServerResponse) =>
  sendStatusPage(
    req,
    res,
    404,
    "NOT_FOUND",
    "Link not found",
    "This short link does not exist or is no longer active.",
  );

export const gone = (req: IncomingMessage, res: ServerResponse) =>
  sendStatusPage(req, res, 410, "LINK_EXPIRED", "Link expired", "This short link has expired.");

export const unavailable = (req: IncomingMessage, res: ServerResponse) =>
  sendStatusPage(
    req,
    res,
    503,
    "SERVICE_UNAVAILABLE",
    "Try again shortly",
    "We could not look up this link right now.",
    {
      "retry-after": "1",
    },
  );
