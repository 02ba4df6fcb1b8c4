// A link's rules in one flat form, built once when the redirect caches the record: per rule a few
// 16-bit numbers (which conditions it has, its devices, systems and browsers as bit sets, where its
// countries and strings are), then the rules' countries, all as the code units of one string; its
// languages and query pairs in one array of strings. Evaluating a link's rules then reads two small
// objects besides the table itself, where the rules as parsed are an object and up to six arrays
// each: the redirect serves many links, each visit a different one, and those reads miss the
// processor's caches. A string holds its units inline, in one allocation a third the size of a typed
// array's (which adds a buffer object and memory outside the heap). `firstHolding` answers as
// `ruleHolds` over the rules in order does, for every visitor (rule-table.unit.test.ts).
import { type CompiledRule, DEVICES, RULE_BROWSERS, RULE_OSES } from "@kurz/contracts";
import { languageMatches } from "./accept-language.ts";
import type { Visitor } from "./visitor.ts";

/** Units per rule at the head of `RuleTable.units`. */
const STRIDE = 7;
// What a rule's first unit says it has.
const HAS_AFTER = 1;
const HAS_BEFORE = 2;
const HAS_QUERY = 4;
const HAS_DEVICE = 8;
const HAS_OS = 16;
const HAS_BROWSER = 32;
const HAS_COUNTRY = 64;
const HAS_LANGUAGE = 128;
// The second unit: the rule's devices, systems and browsers, one bit each, in these fields.
const DEVICE_MASK = 0x7;
const OS_SHIFT = 3;
const OS_MASK = 0x3f << OS_SHIFT;
const BROWSER_SHIFT = 9;
const BROWSER_MASK = 0x3f << BROWSER_SHIFT;
/** The largest offset a unit holds. */
const UNIT_MAX = 0xffff;

export interface RuleTable {
  /** Number of rules. */
  readonly n: number;
  /**
   * Per rule, STRIDE code units: what it has, its agent bits, its countries' [start, end) in this
   * string, its languages' [start, end) and its query pairs' end in `strs` (they start where the
   * languages end); then the countries, two units each (the code's own characters).
   */
  readonly units: string;
  /** Languages (lower case) and query names and values (name, value, name, value ...). */
  readonly strs: readonly string[];
  /** Per rule, after and before in epoch ms (0 when absent); undefined when no rule has a schedule. */
  readonly times: Float64Array | undefined;
}

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
 * system or browser rules do not know, a country not of two characters) or the rules are too many
 * for 16-bit offsets: `ruleHolds` decides those.
 */
export function ruleTable(rules: readonly CompiledRule[]): RuleTable | undefined {
  const n = rules.length;
  const head: number[] = [];
  const countries: number[] = [];
  const strs: string[] = [];
  let times: Float64Array | undefined;
  for (let i = 0; i < n; i++) {
    const r = rules[i]!;
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
    const cFrom = countries.length;
    if (r.c !== undefined) {
      has |= HAS_COUNTRY;
      for (const c of r.c) {
        if (c.length !== 2) return undefined;
        countries.push(c.charCodeAt(0), c.charCodeAt(1));
      }
    }
    const cTo = countries.length;
    const lFrom = strs.length;
    if (r.l !== undefined) {
      has |= HAS_LANGUAGE;
      strs.push(...r.l);
    }
    const lTo = strs.length;
    if (r.q !== undefined) {
      has |= HAS_QUERY;
      for (const [name, value] of r.q) strs.push(name, value);
    }
    // Countries' offsets are relative to the end of the heads until the table is joined.
    head.push(has, agent, cFrom, cTo, lFrom, lTo, strs.length);
  }
  const base = n * STRIDE;
  if (base + countries.length > UNIT_MAX || strs.length > UNIT_MAX) return undefined;
  for (let i = 0; i < n; i++) {
    head[i * STRIDE + 2]! += base;
    head[i * STRIDE + 3]! += base;
  }
  return { n, units: String.fromCharCode(...head, ...countries), strs, times };
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
  const units = t.units;
  const strs = t.strs;
  // The visitor's agent bits, country (its two units; -1 for none) and language, once read.
  let agent = -1;
  let c0 = -2;
  let c1 = -2;
  let language: string | null | undefined;
  for (let i = 0; i < t.n; i++) {
    const at = i * STRIDE;
    const has = units.charCodeAt(at);
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
      const want = units.charCodeAt(at + 1) & agent;
      // Each field the rule has must share a bit with the visitor's.
      if ((has & HAS_DEVICE) !== 0 && (want & DEVICE_MASK) === 0) continue;
      if ((has & HAS_OS) !== 0 && (want & OS_MASK) === 0) continue;
      if ((has & HAS_BROWSER) !== 0 && (want & BROWSER_MASK) === 0) continue;
    }
    if ((has & HAS_COUNTRY) !== 0) {
      if (c0 === -2) {
        const c = v.country;
        if (c === null || c.length !== 2) c0 = c1 = -1;
        else {
          c0 = c.charCodeAt(0);
          c1 = c.charCodeAt(1);
        }
      }
      if (c0 === -1) continue;
      const end = units.charCodeAt(at + 3);
      let any = false;
      for (let j = units.charCodeAt(at + 2); j < end && !any; j += 2)
        any = units.charCodeAt(j) === c0 && units.charCodeAt(j + 1) === c1;
      if (!any) continue;
    }
    if ((has & HAS_LANGUAGE) !== 0) {
      if (language === undefined) language = v.language;
      if (language === null) continue;
      const end = units.charCodeAt(at + 5);
      let any = false;
      for (let j = units.charCodeAt(at + 4); j < end && !any; j++) any = languageMatches(strs[j]!, language);
      if (!any) continue;
    }
    if (
      (has & HAS_QUERY) !== 0 &&
      !queryHolds(strs, units.charCodeAt(at + 5), units.charCodeAt(at + 6), v.query)
    )
      continue;
    return i;
  }
  return -1;
}
