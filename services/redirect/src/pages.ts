// Small self-contained pages for visitors, JSON when the client asks for it. Every page is fixed
// text rendered once at startup: nothing from the request is reflected into them. sendPage is the one
// place their headers are set; the plain redirect (turn-writes.ts) has no body and none of these.
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { htmlPageHeaders, NOSNIFF, NOSNIFF_HEADER } from "@kurz/service-kit";

const STYLE =
  "body{font:16px/1.5 system-ui,sans-serif;color:#1a1410;background:#faf8f5;display:grid;place-items:center;min-height:90vh;margin:0}main{max-width:28rem;padding:2rem;text-align:center}h1{font-size:1.5rem;margin:0 0 .5rem}p{color:#5c534b}form{display:flex;gap:.5rem;justify-content:center;margin-top:1rem}input{font:inherit;padding:.4rem .6rem;border:1px solid #c9bfb5;border-radius:.3rem}button{font:inherit;padding:.4rem .9rem;border:0;border-radius:.3rem;background:#1a1410;color:#faf8f5;cursor:pointer}.error{color:#a4262c}";

// The pages' one inline style, allowed by its hash; nothing else loads. No form-action: the password
// form's POST answers with a 303 to the link's destination, and browsers check form-action on that
// redirect too.
const STYLE_HASH = createHash("sha256").update(STYLE).digest("base64");
const HTML_HEADERS = htmlPageHeaders(`default-src 'none'; style-src 'sha256-${STYLE_HASH}'`);

function html(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${title}</title><style>${STYLE}</style></head><body><main><h1>${title}</h1>${body}</main></body></html>`;
}

interface Page {
  status: number;
  html: Buffer;
  json: Buffer;
}

function page(status: number, code: string, title: string, message: string, body?: string): Page {
  return {
    status,
    html: Buffer.from(html(title, body ?? `<p>${message}</p>`)),
    json: Buffer.from(JSON.stringify({ success: false, error: { code, message } })),
  };
}

// No action attribute: the form posts back to the URL it was served from, whatever the host or path.
const form = (note: string) =>
  `<p>${note}</p><form method="post"><input type="password" name="password" aria-label="Password" autocomplete="current-password" required autofocus><button type="submit">Continue</button></form>`;

export const PAGES = {
  notFound: page(
    404,
    "NOT_FOUND",
    "Link not found",
    "This short link does not exist or is no longer active.",
  ),
  gone: page(410, "LINK_EXPIRED", "Link expired", "This short link has expired."),
  unavailable: page(
    503,
    "SERVICE_UNAVAILABLE",
    "Try again shortly",
    "We could not look up this link right now.",
  ),
  passwordForm: page(
    200,
    "PASSWORD_REQUIRED",
    "Password required",
    "This link is password protected. POST the password as the form field 'password'.",
    form("This link is password protected."),
  ),
  passwordRequired: page(
    401,
    "PASSWORD_REQUIRED",
    "Password required",
    "This link is password protected. POST the password as the form field 'password'.",
    form("This link is password protected."),
  ),
  wrongPassword: page(
    401,
    "INVALID_PASSWORD",
    "Password required",
    "The password is not correct.",
    form('<span class="error">That password is not correct.</span> Try again.'),
  ),
  tooManyAttempts: page(
    429,
    "RATE_LIMIT_EXCEEDED",
    "Too many attempts",
    "Too many wrong passwords for this link. Try again later.",
  ),
  tooManyLookups: page(
    429,
    "RATE_LIMIT_EXCEEDED",
    "Too many requests",
    "Too many requests for links that do not exist. Try again later.",
  ),
  methodNotAllowed: page(
    405,
    "METHOD_NOT_ALLOWED",
    "Method not allowed",
    "Short links answer GET and HEAD (and POST for a password).",
  ),
  payloadTooLarge: page(413, "PAYLOAD_TOO_LARGE", "Request too large", "The form is too large."),
  unsupportedMediaType: page(
    415,
    "UNSUPPORTED_MEDIA_TYPE",
    "Unsupported form",
    "Send the password as application/x-www-form-urlencoded.",
  ),
} satisfies Record<string, Page>;

export const wantsJson = (req: IncomingMessage) => req.headers.accept?.includes("application/json") === true;

const HTML_TYPE = "text/html; charset=utf-8";
const JSON_TYPE = "application/json; charset=utf-8";
const JSON_HEADERS = { [NOSNIFF_HEADER]: NOSNIFF };

export function sendPage(
  req: IncomingMessage,
  res: ServerResponse,
  p: Page,
  extraHeaders?: Record<string, string>,
): void {
  const json = wantsJson(req);
  const body = json ? p.json : p.html;
  res.writeHead(p.status, {
    ...(json ? JSON_HEADERS : HTML_HEADERS),
    "content-type": json ? JSON_TYPE : HTML_TYPE,
    "content-length": body.length,
    "cache-control": "no-store",
    ...extraHeaders,
  });
  res.end(req.method === "HEAD" ? undefined : body);
}
