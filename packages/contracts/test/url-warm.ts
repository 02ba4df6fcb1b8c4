// Every URL check called often enough for V8 to optimise it, each answer held to what the URL is.
// `URL.canParse` answered false for IDN URLs only once its caller was optimised (decision 0010), so a
// check is trusted only after this many calls. Run by url.test.ts under the Node running the tests
// and, through url-warm-cli.ts, under Node 22. Plain TypeScript with erasable types only, so Node 22
// runs it without a build.
import { AnyUrl, HttpUrl, isUrl, Link, parseHttpUrl, toLocation } from "../src/index.ts";
import { link } from "./samples.ts";

export const WARM_CALLS = 50_000;

interface Case {
  url: string;
  /** Any absolute URL (responses, events). */
  url_ok: boolean;
  /** An http(s) URL a link may point to. */
  http_ok: boolean;
}

const valid = (url: string): Case => ({ url, url_ok: true, http_ok: true });

export const CASES: Case[] = [
  valid("https://münchen.de/"),
  valid("https://bäckerei.example/brot"),
  valid("https://straße.de/Grüße?ä=ö#ü"),
  valid("https://例え.テスト/パス?クエリ=値#断片"),
  valid("https://xn--mnchen-3ya.de/"),
  valid("https://example.com/%E2%82%AC/a%20b?q=%C3%A4&x=%2F"),
  valid("https://example.com/100%"),
  valid('https://example.com/?q={"a":1}&x=<y>'),
  valid("https://example.com/a b/😀"),
  valid("HTTPS://EXAMPLE.COM:443/A/../b/./c"),
  valid("https://user:pa%20ss@example.com:8443/p;a=b?c#d"),
  valid("http://[::1]:8080/x"),
  valid("http://127.0.0.1/"),
  valid("http://localhost"),
  valid("https://example.com/path|with^odd`chars[0]"),
  { url: "ftp://example.com/file", url_ok: true, http_ok: false },
  { url: "mailto:a@münchen.de", url_ok: true, http_ok: false },
  { url: "http:example.com", url_ok: true, http_ok: false },
  { url: "https://", url_ok: false, http_ok: false },
  { url: "not a url", url_ok: false, http_ok: false },
  { url: "https://exa mple.com/", url_ok: false, http_ok: false },
  { url: "https://münchen de/", url_ok: false, http_ok: false },
  { url: "http://[::1/", url_ok: false, http_ok: false },
];

const anyUrl = AnyUrl();
const linkOf = (url: string) => ({ ...link, original_url: url });

/** Each check's answer for a case, as a string so that every kind of answer compares the same way. */
const CHECKS: Record<string, (c: Case) => string> = {
  isUrl: (c) => String(isUrl(c.url) === c.url_ok),
  parseHttpUrl: (c) => String((parseHttpUrl(c.url) !== null) === c.http_ok),
  AnyUrl: (c) => String(anyUrl.safeParse(c.url).success === c.url_ok),
  HttpUrl: (c) => String(HttpUrl.safeParse(c.url).success === c.http_ok),
  "Link response": (c) => String(!c.http_ok || Link.safeParse(linkOf(c.url)).success),
  toLocation: (c) => (c.url_ok ? toLocation(c.url) : "skipped"),
};

export interface Disagreement {
  check: string;
  url: string;
  /** How many of the case's calls answered otherwise than expected. */
  wrong: number;
  calls: number;
}

/**
 * Calls every check WARM_CALLS times over the cases in turn; returns each (check, case) whose answers
 * were not all right (for toLocation: not all equal to its first answer, taken before warming).
 */
export function warmDisagreements(calls = WARM_CALLS): Disagreement[] {
  const out: Disagreement[] = [];
  for (const [check, answer] of Object.entries(CHECKS)) {
    const expected = CASES.map((c) => (check === "toLocation" ? answer(c) : "true"));
    const wrong = new Array<number>(CASES.length).fill(0);
    const made = new Array<number>(CASES.length).fill(0);
    for (let i = 0; i < calls; i++) {
      const k = i % CASES.length;
      made[k]!++;
      if (answer(CASES[k]!) !== expected[k]) wrong[k]!++;
    }
    CASES.forEach((c, k) => {
      if (wrong[k]! > 0) out.push({ check, url: c.url, wrong: wrong[k]!, calls: made[k]! });
    });
  }
  return out;
}
