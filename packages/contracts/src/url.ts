// Whether a string is a URL, and the form a URL takes in a Location header: decided here, for every
// service, the dashboard and every schema (decision 0010).
//
// The WHATWG parser decides, through `new URL` in a try/catch. Never `URL.canParse` (nor `z.url()`,
// which calls it): on Node 20 and 22, once V8 optimises its caller, `URL.canParse` answers false for
// URLs that `new URL` parses, such as any with an IDN host (`https://münchen.de/`). A test holds the
// sources to this (test/url.test.ts).
import * as z from "zod";

/** The URL `value` names, or null when it names none. */
export function parseUrl(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

export const isUrl = (value: string): boolean => parseUrl(value) !== null;

/**
 * An http(s) URL written with its `//` (so `http:example.com` is not taken for `http://example.com/`),
 * or null.
 */
export function parseHttpUrl(value: string): URL | null {
  if (!/^https?:\/\//i.test(value)) return null;
  const url = parseUrl(value);
  return url !== null && (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== ""
    ? url
    : null;
}

// The parser deletes ASCII tab, LF and CR anywhere and ignores leading and trailing C0 controls and
// spaces; a stored URL drops them the same way, so what is stored is what was validated.
const TAB_OR_NEWLINE = /[\t\n\r]/g;
const asParsed = (s: string) => s.trim().replace(TAB_OR_NEWLINE, "");

const urlIssue = (input: string, message?: string) =>
  ({ code: "invalid_format", format: "url", input, ...(message ? { message } : {}) }) as const;

/** Any absolute URL (responses and events); OpenAPI `format: uri`. */
export const AnyUrl = (message?: string) =>
  z
    .string()
    .check((ctx) => {
      if (!isUrl(ctx.value)) ctx.issues.push(urlIssue(ctx.value, message));
    })
    .meta({ format: "uri" });

/**
 * An absolute http(s) URL, as typed by a person: surrounding spaces and tabs or newlines inside are
 * dropped (the parser drops them anyway), then it must parse. IP-literal and single-label hosts pass:
 * reachability is not a shape rule.
 */
export const HttpUrlString = (message?: string) =>
  z
    .string()
    .overwrite(asParsed)
    .check((ctx) => {
      if (parseHttpUrl(ctx.value) === null) ctx.issues.push(urlIssue(ctx.value, message));
    })
    .meta({ format: "uri" });

// ---- Location ----

// RFC 3986 URI with an authority: what a Location may hold byte for byte. Tested once per redirect,
// so one linear expression (an IPv6 literal host is checked for its characters only).
const PCT = "%[0-9A-Fa-f]{2}";
const SUB = "A-Za-z0-9\\-._~!$&'()*+,;=";
const PCHAR = `(?:[${SUB}:@]|${PCT})`;
const VALID_URI = new RegExp(
  `^[A-Za-z][A-Za-z0-9+.\\-]*://(?:(?:[${SUB}:]|${PCT})*@)?(?:\\[[0-9A-Fa-f:.]+\\]|(?:[${SUB}]|${PCT})*)(?::[0-9]*)?` +
    `(?:/${PCHAR}*)*(?:\\?(?:${PCHAR}|[/?])*)?(?:#(?:${PCHAR}|[/?])*)?$`,
);

/** Whether `value` already is a valid URI (RFC 3986) that a Location can carry unchanged. */
export const isLocationReady = (value: string): boolean => VALID_URI.test(value);

// What the WHATWG serialisation still leaves raw after the authority and a URI does not allow.
const NOT_URI_TAIL = /[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%]|%(?![0-9A-Fa-f]{2})/gu;
const NOT_URI_FRAGMENT = /[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%]|%(?![0-9A-Fa-f]{2})|#/gu;
const STRAY_PERCENT = /%(?![0-9A-Fa-f]{2})/g;
const utf8 = new TextEncoder();
const percentEncode = (s: string) => {
  let out = "";
  for (const byte of utf8.encode(s)) out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  return out;
};

/**
 * The URL as a Location header carries it: a valid URI reference, the same URL for a browser.
 * A valid URI is returned byte for byte. Otherwise the browser's own serialisation (WHATWG `href`: IDN
 * hosts in punycode, spaces, quotes, `<`, `>` and non-ASCII percent-encoded, `\` read as `/`) with
 * what that still leaves raw and a URI does not allow (`{`, `}`, `|`, `^`, `` ` ``, `[`, `]` after the
 * host, a `#` inside the fragment, a `%` not followed by two hex digits) percent-encoded too. Escapes
 * already there are never decoded or encoded again. A value that does not parse at all is
 * percent-encoded as text, so a header never carries a control character or a non-URI byte.
 */
export function toLocation(value: string): string {
  if (VALID_URI.test(value)) return value;
  const url = parseUrl(value);
  if (url === null) return encodeTail(value);
  const href = url.href;
  // The tail (path, query, fragment) starts at the first `/`, `?` or `#` after `scheme://`: the
  // serialised userinfo and host hold none of them.
  let cut = url.protocol.length;
  if (href.startsWith("//", cut)) {
    const end = href.slice(cut + 2).search(/[/?#]/);
    cut = end === -1 ? href.length : cut + 2 + end;
  }
  const head = href.slice(0, cut);
  // The authority holds no raw character beyond a stray `%` in its userinfo.
  return head.replace(STRAY_PERCENT, "%25") + encodeTail(href.slice(head.length));
}

function encodeTail(tail: string): string {
  const hash = tail.indexOf("#");
  const beforeHash = hash === -1 ? tail : tail.slice(0, hash);
  const encoded = beforeHash.replace(NOT_URI_TAIL, percentEncode);
  return hash === -1
    ? encoded
    : `${encoded}#${tail.slice(hash + 1).replace(NOT_URI_FRAGMENT, percentEncode)}`;
}
