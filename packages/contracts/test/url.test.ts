import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { isLocationReady, parseUrl, toLocation } from "../src/index.ts";
import { CASES, WARM_CALLS, warmDisagreements } from "./url-warm.ts";

const ROOT = join(import.meta.dirname, "../../..");

/** RFC 3986's characters, every `%` starting an escape, at most one `#`: checked apart from url.ts. */
function isUriReference(s: string): boolean {
  if (/[^A-Za-z0-9\-._~!$&'()*+,;=:@/?#[\]%]/.test(s)) return false;
  if (/%(?![0-9A-Fa-f]{2})/.test(s)) return false;
  const hash = s.indexOf("#");
  const afterHost = s.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, "");
  return (hash === -1 || !s.includes("#", hash + 1)) && !/[[\]]/.test(afterHost);
}

describe("URL checks warmed past optimisation", () => {
  it(`answer right on every one of ${WARM_CALLS} calls, IDN hosts included (${process.version})`, () => {
    expect(warmDisagreements()).toEqual([]);
  });

  // ./kurz test runs on the production image's Node and names the machine's own here (infra/local/lib.sh,
  // ensure_image_node): `./kurz up` runs on that one, so the checks must hold there too.
  const systemNode = process.env.KURZ_SYSTEM_NODE;
  it.runIf(systemNode && systemNode !== process.execPath)(
    "answer right on every call under the machine's own Node as well (when ./kurz test names it)",
    () => {
      const cli = join(import.meta.dirname, "url-warm-cli.ts");
      const out = execFileSync(systemNode!, ["--import", "tsx", cli], { cwd: ROOT, encoding: "utf8" });
      expect(JSON.parse(out)).toMatchObject({ disagreements: [] });
    },
  );
});

describe("toLocation", () => {
  it.each([
    // Already a valid URI: byte for byte, escapes and case included.
    ["https://example.com/", "https://example.com/"],
    ["HTTPS://Example.COM/a/../b?q=%7a%41#f", "HTTPS://Example.COM/a/../b?q=%7a%41#f"],
    ["https://example.com/a%20b?q=%E2%82%AC&x=%2F#top", "https://example.com/a%20b?q=%E2%82%AC&x=%2F#top"],
    ["http://[::1]:8080/x?y", "http://[::1]:8080/x?y"],
    [
      "https://u:p@example.com:8443/p;a=b!$&'()*+,=:@?/?#/?",
      "https://u:p@example.com:8443/p;a=b!$&'()*+,=:@?/?#/?",
    ],
    // IDN hosts in punycode, non-ASCII as UTF-8 escapes: as browsers serialise them.
    ["https://münchen.de/", "https://xn--mnchen-3ya.de/"],
    ["https://bäckerei.example/brot?ä=ö#ü", "https://xn--bckerei-5wa.example/brot?%C3%A4=%C3%B6#%C3%BC"],
    // What a URI does not allow, percent-encoded; the rest untouched.
    ['https://example.com/?q={"a":1}&x=<y>', "https://example.com/?q=%7B%22a%22:1%7D&x=%3Cy%3E"],
    ["https://example.com/100%", "https://example.com/100%25"],
    ["https://example.com/100%?d=50%25&e=%", "https://example.com/100%25?d=50%25&e=%25"],
    ["https://example.com/a b/c|d^e`f[0]", "https://example.com/a%20b/c%7Cd%5Ee%60f%5B0%5D"],
    ["https://example.com/p#a#b c", "https://example.com/p#a%23b%20c"],
    ["https://a%@example.com/", "https://a%25@example.com/"],
    // A backslash is a slash to a browser: the host stays the one validated.
    ["https://example.com\\@evil.example/", "https://example.com/@evil.example/"],
  ])("%s → %s", (input, expected) => {
    expect(toLocation(input)).toBe(expected);
    expect(isLocationReady(expected)).toBe(true);
    expect(isUriReference(expected)).toBe(true);
  });

  it("keeps the URL a browser would follow: same host, same path once escapes are read", () => {
    for (const c of CASES.filter((c) => c.http_ok)) {
      const before = parseUrl(c.url)!;
      const after = parseUrl(toLocation(c.url))!;
      expect(after.host, c.url).toBe(before.host);
      expect(decodeURI(after.pathname), c.url).toBe(
        decodeURI(before.pathname.replace(/%(?![0-9A-F]{2})/gi, "%25")),
      );
    }
  });

  it("never lets a control character, a quote or a non-URI byte through, whatever is stored", () => {
    // A fixed sequence (no clock, no Math.random): each string the host and path a stored URL could hold.
    const alphabet = [
      '"',
      "<",
      ">",
      " ",
      "{",
      "}",
      "|",
      "\\",
      "^",
      "`",
      "%",
      "#",
      "[",
      "]",
      "\r",
      "\n",
      "\t",
      "\0",
      "\u007f",
      "\u0085",
      "\u2028",
      "ü",
      "😀",
      "\ud800",
      "a",
      "/",
      "?",
      "=",
      "&",
      "%4",
      "%41",
      "@",
      ":",
    ];
    let seed = 49;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let i = 0; i < 2000; i++) {
      let tail = "";
      for (let n = next() % 12; n >= 0; n--) tail += alphabet[next() % alphabet.length];
      for (const stored of [`https://example.com/${tail}`, `https://example.com/?q=${tail}`, tail]) {
        const location = toLocation(stored);
        expect(isUriReference(location), JSON.stringify(stored)).toBe(true);
        if (parseUrl(stored)?.protocol === "https:") {
          expect(parseUrl(location)?.host, JSON.stringify(stored)).toBe(parseUrl(stored)?.host);
        }
      }
    }
  });
});

describe("URL validity is decided in one place", () => {
  // `URL.canParse` (which `z.url()` calls) answers wrong once optimised: sources use src/url.ts.
  it("no service or package source calls URL.canParse or z.url()", () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (["node_modules", "dist", "test"].includes(entry.name) || entry.name.startsWith(".")) continue;
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (/\.(ts|tsx|mts)$/.test(entry.name) && !path.endsWith(join("contracts", "src", "url.ts"))) {
          const code = readFileSync(path, "utf8").replace(/^\s*(\/\/|\*).*$/gm, "");
          if (/\bcanParse\s*\(|\bz\.url\s*\(/.test(code)) offenders.push(relative(ROOT, path));
        }
      }
    };
    for (const top of ["packages", "services", "infra"]) walk(join(ROOT, top));
    expect(offenders).toEqual([]);
  });
});
