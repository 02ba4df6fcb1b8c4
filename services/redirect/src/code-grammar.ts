// Which paths can name a link or a rotator at all. A link's code follows the code rule of
// packages/contracts (isCodeShaped: letters, digits, `_` and `-`, 1 to 100 characters, the codes an
// import keeps as its peer made them, which include every API alias and generated code); a rotator's
// slug follows the API's alias rule (3-50 letters, digits and hyphens, no hyphen at either end).
// Anything else is a 404 without asking the cache, Redis or management. Paths are matched as sent and
// compared case-sensitively: a percent-escape is never part of a code, so `/%41bc` is not `/Abc`, and
// no decoding can turn a path into another one.
import { ALIAS_MAX_LENGTH, ALIAS_MIN_LENGTH, ALIAS_PATTERN, isCodeShaped } from "@kurz/contracts";

export { isCodeShaped };

export function isSlugShaped(id: string): boolean {
  return id.length >= ALIAS_MIN_LENGTH && id.length <= ALIAS_MAX_LENGTH && ALIAS_PATTERN.test(id);
}
