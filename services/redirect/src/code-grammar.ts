// Which paths can name a link or a rotator at all (issue 11 item 4). Generated codes (7 base62
// characters, management's short-codes.ts), custom aliases and rotator slugs all follow the alias
// grammar of packages/contracts (3-50 letters, digits and hyphens, no hyphen at either end), so that
// grammar is exactly the set of ids worth a lookup. Anything else is a 404 without asking the cache,
// Redis or management. Paths are matched as sent: a percent-escape is never part of a code, so
// `/%41bc` is not `/Abc`, and no decoding can turn a path into another one.
import { ALIAS_MAX_LENGTH, ALIAS_MIN_LENGTH, ALIAS_PATTERN } from "@kurz/contracts";

export function isCodeShaped(id: string): boolean {
  return id.length >= ALIAS_MIN_LENGTH && id.length <= ALIAS_MAX_LENGTH && ALIAS_PATTERN.test(id);
}
