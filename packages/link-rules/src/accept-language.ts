// The visitor's language from Accept-Language (RFC 9110 §12.5.4): the range with the highest q-value,
// the first of equal ones. A header is read at most this far: longer is not a browser's.
const HEADER_MAX = 512;
const RANGE = /^\s*([A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*)\s*(?:;\s*q\s*=\s*([01](?:\.\d{0,3})?))?\s*$/;

/** Lower-case language tag (`pt-br`), or null for none, `*` only, or a malformed header. */
export function preferredLanguage(header: string | undefined): string | null {
  if (header === undefined || header === "") return null;
  let best: string | null = null;
  let bestQ = 0;
  for (const part of header.slice(0, HEADER_MAX).split(",")) {
    const m = RANGE.exec(part);
    if (m === null) continue;
    const q = m[2] === undefined ? 1 : Number(m[2]);
    if (q > bestQ) {
      best = m[1]!.toLowerCase();
      bestQ = q;
    }
  }
  return best;
}

/** A rule's language (`de`, `pt-br`, lower case) holds for `de`, `de-at` and `pt-br`, not `pt`. */
export function languageMatches(ruleTag: string, visitor: string): boolean {
  return visitor === ruleTag || (visitor.startsWith(ruleTag) && visitor.charCodeAt(ruleTag.length) === 45);
}
