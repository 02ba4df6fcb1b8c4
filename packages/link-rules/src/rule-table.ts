// A link's rules in one flat form, built once when the redirect caches the record: per rule a few
// integers (which conditions it has, its devices, systems and browsers as bit sets, where its countries
// and strings are) in one Int32Array, its countries as numbers in the same array, its languages and
// query pairs in one array of strings. Evaluating a link's rules then reads three small objects,
// where the rules as parsed are an object and up to six arrays each: the redirect serves many links,
// each visit a different one, and those reads miss the processor's caches. `firstHolding` answers as
// `ruleHolds` over the rules in order does, for every visitor (rule-table.unit.test.ts).
import { type CompiledRule, DEVICES, RULE_BROWSERS, RULE_OSES } from "@kurz/contracts";
import { languageMatches } from "./accept-language.ts";
import type { Visitor } from "./visitor.ts";

/** Integers per rule at the head of `RuleTable.ints`. */
const STRIDE = 8;
// What a rule's first integer says it has.
const HAS_AFTER = 1;
const HAS_BEFORE = 2;
const HAS_QUERY = 4;
const HAS_DEVICE = 8;
const HAS_OS = 16;
const HAS_BROWSER = 32;
const HAS_COUNTRY = 64;
const HAS_LANGUAGE = 128;
// The second integer: the rule's devices, systems and browsers, one bit each, in these fields.
const OS_SHIFT = 8;
const BROWSER_SHIFT = 16;

export interface RuleTable {
  /** Number of rules. */
  readonly n: number;
  /**
   * Per rule, STRIDE integers: what it has, its agent bits, its countries' [start, end) in this array,
   * its languages' [start, end) and its query pairs' [start, end) in `strs`, and one unused; then the
   * countries, each as countryNumber.
   */
  readonly ints: Int32Array;
  /** Languages (lower case) and query names and values (name, value, name, value ...). */
  readonly strs: readonly string[];
  /** Per rule, after and before in epoch ms (0 when absent); undefined when no rule has a schedule. */
  readonly times: Float64Array | undefined;
}

/** A two-character code as one number; -1 for any other length, which no country rule names. */
const countryNumber = (c: string): number =>
  c.length === 2 ? (c.charCodeAt(0) << 16) | c.charCodeAt(1) : -1;

function bitsOf(names: readonly string[], known: readonly string[]): number {
  let bits = 0;
  for (const name of names) {
    const i = known.indexOf(name);
    if (i === -1) return -1;
    bits |= 1 << i;
  }
  return bits;
}

/** The bit of `name` among `known`; 0 for null or a name not among them, which no rule can list. */
function bitOf(name: string | null, known: readonly string[]): number {
  if (name === null) return 0;
  for (let i = 0; i < known.length; i++) if (known[i] === name) return 1 << i;
  return 0;
}

/**
 * The flat form of `rules`; undefined when a rule lists something no visitor can be (a device,
 * system or browser rules do not know, a country not of two characters): `ruleHolds` decides those.
 */
export function ruleTable(rules: readonly CompiledRule[]): RuleTable | undefined {
  const n = rules.length;
  const countries: number[] = [];
  const strs: string[] = [];
  const head = new Int32Array(n * STRIDE);
  let times: Float64Array | undefined;
  for (let i = 0; i < n; i++) {
    const r = rules[i]!;
    const at = i * STRIDE;
    let has = 0;
    let agent = 0;
    if (r.a !== undefined || r.z !== undefined) {
      times ??= new Float64Array(n * 2);
      if (r.a !== undefined) {
        has |= HAS_AFTER;
        times[i * 2] = r.a;
      }
      if (r.z !== undefined) {
        has |= HAS_BEFORE;
        times[i * 2 + 1] = r.z;
      }
    }
    if (r.d !== undefined) {
      const bits = bitsOf(r.d, DEVICES);
      if (bits === -1) return undefined;
      has |= HAS_DEVICE;
      agent |= bits;
    }
    if (r.o !== undefined) {
      const bits = bitsOf(r.o, RULE_OSES);
      if (bits === -1) return undefined;
      has |= HAS_OS;
      agent |= bits << OS_SHIFT;
    }
    if (r.b !== undefined) {
      const bits = bitsOf(r.b, RULE_BROWSERS);
      if (bits === -1) return undefined;
      has |= HAS_BROWSER;
      agent |= bits << BROWSER_SHIFT;
    }
    head[at + 2] = countries.length;
    if (r.c !== undefined) {
      has |= HAS_COUNTRY;
      for (const c of r.c) {
        const code = countryNumber(c);
        if (code === -1) return undefined;
        countries.push(code);
      }
    }
    head[at + 3] = countries.length;
    head[at + 4] = strs.length;
    if (r.l !== undefined) {
      has |= HAS_LANGUAGE;
      strs.push(...r.l);
    }
    head[at + 5] = strs.length;
    if (r.q !== undefined) {
      has |= HAS_QUERY;
      for (const [name, value] of r.q) strs.push(name, value);
    }
    head[at + 6] = strs.length;
    head[at] = has;
    head[at + 1] = agent;
  }
  const ints = new Int32Array(n * STRIDE + countries.length);
  ints.set(head);
  // Countries' offsets are relative to the end of the heads until here.
  for (let i = 0; i < n; i++) {
    ints[i * STRIDE + 2]! += n * STRIDE;
    ints[i * STRIDE + 3]! += n * STRIDE;
  }
  ints.set(countries, n * STRIDE);
  return { n, ints, strs, times };
}

/** Whether the query rule whose pairs are `strs[from, to)` holds for `query`, as in ruleHolds. */
function queryHolds(strs: readonly string[], from: number, to: number, query: string): boolean {
  if (query === "") return false;
  // A query with no escapes spells every name as it decodes: one that does not contain a rule's
  // name cannot match, without parsing it.
  if (query.indexOf("%") === -1 && query.indexOf("+") === -1) {
    for (let i = from; i < to; i += 2) if (query.indexOf(strs[i]!) === -1) return false;
  }
  const params = new URLSearchParams(query);
  for (let i = from; i < to; i += 2) if (params.get(strs[i]!) !== strs[i + 1]) return false;
  return true;
}

/**
 * The index of the first rule of `t` whose every condition holds for `v`, or -1. Each part of the
 * visitor is read once, on the first rule that asks for it; conditions are checked cheapest first.
 */
export function firstHolding(t: RuleTable, v: Visitor): number {
  const ints = t.ints;
  const strs = t.strs;
  // The visitor's agent bits, country and language, once read (-1 / undefined: not yet).
  let agent = -1;
  let country = -2;
  let language: string | null | undefined;
  for (let i = 0; i < t.n; i++) {
    const at = i * STRIDE;
    const has = ints[at]!;
    if ((has & (HAS_AFTER | HAS_BEFORE)) !== 0) {
      const times = t.times!;
      if ((has & HAS_AFTER) !== 0 && v.now < times[i * 2]!) continue;
      if ((has & HAS_BEFORE) !== 0 && v.now >= times[i * 2 + 1]!) continue;
    }
    if ((has & (HAS_DEVICE | HAS_OS | HAS_BROWSER)) !== 0) {
      if (agent === -1)
        agent =
          bitOf(v.device, DEVICES) |
          (bitOf(v.os, RULE_OSES) << OS_SHIFT) |
          (bitOf(v.browser, RULE_BROWSERS) << BROWSER_SHIFT);
      const want = ints[at + 1]!;
      // Each field the rule has must share a bit with the visitor's.
      if ((has & HAS_DEVICE) !== 0 && (want & agent & 0xff) === 0) continue;
      if ((has & HAS_OS) !== 0 && (want & agent & (0xff << OS_SHIFT)) === 0) continue;
      if ((has & HAS_BROWSER) !== 0 && (want & agent & (0xff << BROWSER_SHIFT)) === 0) continue;
    }
    if ((has & HAS_COUNTRY) !== 0) {
      if (country === -2) {
        const c = v.country;
        country = c === null ? -1 : countryNumber(c);
      }
      if (country === -1) continue;
      const end = ints[at + 3]!;
      let any = false;
      for (let j = ints[at + 2]!; j < end && !any; j++) any = ints[j] === country;
      if (!any) continue;
    }
    if ((has & HAS_LANGUAGE) !== 0) {
      if (language === undefined) language = v.language;
      if (language === null) continue;
      const end = ints[at + 5]!;
      let any = false;
      for (let j = ints[at + 4]!; j < end && !any; j++) any = languageMatches(strs[j]!, language);
      if (!any) continue;
    }
    if ((has & HAS_QUERY) !== 0 && !queryHolds(strs, ints[at + 5]!, ints[at + 6]!, v.query)) continue;
    return i;
  }
  return -1;
}
