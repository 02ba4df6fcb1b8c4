/**
 * One canonical path per request (docs/security.md, "Edges, paths and internal credentials").
 *
 * A service that routes or forwards decides on a path, and whatever sits behind it may read that
 * path differently: resolve `..`, turn `\` into `/`, decode `%2f` before splitting, stop at NUL.
 * Rather than normalise (and so guess which reading the next hop uses), every Node edge refuses
 * any path that two readers could disagree on, and forwards the accepted one byte for byte.
 * The query string is kept verbatim: no hop routes on it.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { API_VERSION, API_VERSION_HEADER } from "@kurz/contracts";
import { envelopeForPath, sendError } from "./envelope.ts";
import { badRequest } from "./errors.ts";

/** Longest path (without the query) accepted, in bytes of the request target. */
export const MAX_PATH_LENGTH = 2048;

export type CanonicalPath =
  | {
      ok: true /** the path, verbatim */;
      path: string /** path + query, verbatim: what to forward */;
      url: string;
    }
  | { ok: false; reason: string };

// Encoded `.`, `/`, `\` and every encoded control character (C0, DEL) — never needed in a path.
const ENCODED_AMBIGUOUS = /%(?:2e|2f|5c|[01][0-9a-f]|7f)/i;
// Anything but visible ASCII (controls, NUL, DEL, spaces, raw non-ASCII bytes that each hop would
// decode its own way), a raw backslash, and `#` (a fragment never belongs in a request target).
const RAW_AMBIGUOUS = /[^\u0021-\u007e]|[\\#]/;
// A percent sign not followed by two hex digits: readers disagree on what it means.
const BROKEN_ESCAPE = /%(?![0-9a-f]{2})/i;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
const DECODED_AMBIGUOUS = /[/\\\u0000-\u001f\u007f-\u009f]/;

const refuse = (reason: string): CanonicalPath => ({ ok: false, reason });

/**
 * The request target as it will be routed and forwarded, or why it is refused.
 * Refused: not origin-form (`/…`), over MAX_PATH_LENGTH, `.`/`..` or empty segments (`//`), encoded
 * dots/slashes/backslashes (`%2e %2f %5c`), raw backslashes, NUL and other control characters raw
 * or encoded, broken escapes, invalid UTF-8 (`%c0%ae`), and segments that Unicode compatibility
 * normalisation would turn into a dot segment or a slash (fullwidth `．` `／` `＼`).
 */
export function canonicalPath(rawUrl: string | undefined): CanonicalPath {
  const url = rawUrl ?? "";
  if (!url.startsWith("/")) return refuse("Request target must be a path");
  const queryAt = url.indexOf("?");
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  if (path.length > MAX_PATH_LENGTH) return refuse(`Path is longer than ${MAX_PATH_LENGTH} characters`);
  if (RAW_AMBIGUOUS.test(path))
    return refuse("Path contains a backslash, a control or a non-ASCII character");
  if (ENCODED_AMBIGUOUS.test(path)) return refuse("Path contains an encoded dot, slash or control character");
  if (BROKEN_ESCAPE.test(path)) return refuse("Path contains a malformed percent escape");
  const segments = path.split("/");
  // segments[0] is the empty string before the leading slash; the last may be empty (trailing slash).
  for (let i = 1; i < segments.length; i++) {
    const segment = segments[i]!;
    if (segment === "" && i < segments.length - 1) return refuse("Path contains an empty segment");
    if (segment === "." || segment === "..") return refuse("Path contains a dot segment");
    if (segment.includes("%") && !plainSegment(segment)) {
      return refuse("Path contains a segment that decodes ambiguously");
    }
  }
  return { ok: true, path, url };
}

/** A segment with escapes is plain when it decodes (UTF-8) to no dot segment or separator. */
function plainSegment(segment: string): boolean {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    return false; // invalid UTF-8, e.g. the overlong `%c0%ae` some decoders read as "."
  }
  const folded = decoded.normalize("NFKC");
  // A double-encoded `%252e` is refused too: one more decoding hop would make it a dot.
  if (ENCODED_AMBIGUOUS.test(decoded)) return false;
  return folded !== "." && folded !== ".." && !DECODED_AMBIGUOUS.test(folded);
}

/**
 * Answers 400 for a refused path: the v1 envelope under `/api/v1`, the legacy one under `/api`,
 * plain text elsewhere (the docs page, campaign pages, short links are not JSON APIs). A body still
 * on its way is drained so the client's keep-alive connection stays usable.
 */
export function sendPathRefusal(req: IncomingMessage, res: ServerResponse, reason: string): void {
  if (!req.complete) req.resume();
  const rawPath = (req.url ?? "/").split("?", 1)[0]!;
  const lower = rawPath.toLowerCase();
  if (lower === "/api" || lower.startsWith("/api/") || lower.startsWith("/api%")) {
    const envelope = envelopeForPath(rawPath);
    // A v1 refusal is a v1 response: it says which version answered, like every other (docs/api.md).
    if (envelope === "v1") res.setHeader(API_VERSION_HEADER, API_VERSION);
    sendError(res, badRequest(reason), envelope);
    return;
  }
  const body = `Bad Request: ${reason}\n`;
  res.writeHead(400, {
    "content-type": "text/plain; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
  });
  res.end(req.method === "HEAD" ? undefined : body);
}
