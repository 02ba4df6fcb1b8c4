// Where a visit goes: app links for their platform, then the first rule whose every condition holds,
// then the split arm of this visitor, then the link's own URL; the visit's query added when the link
// forwards it. Expiry and the click limit are the redirect's (they need the clock and a counter).
import type { CompiledRule, Destination, SmartRecord } from "@kurz/contracts";
import { languageMatches } from "./accept-language.ts";
import { forwardQuery } from "./forward-query.ts";
import { firstHolding } from "./rule-table.ts";
import type { UniformSmartRecord } from "./uniform.ts";
import type { Visitor } from "./visitor.ts";

export interface Decision {
  url: string;
  destination: Destination;
  /**
   * The chosen URL before the visit's query was added (`url` itself when nothing was): `url` is this
   * joined with pairs of the query by `?` and `&` alone.
   */
  chosen: string;
}

const decision = (url: string, destination: Destination): Decision => ({ url, destination, chosen: url });

/** Whether every condition of `rule` holds for `v`; conditions are checked cheapest first. */
export function ruleHolds(rule: CompiledRule, v: Visitor): boolean {
  if (rule.a !== undefined && v.now < rule.a) return false;
  if (rule.z !== undefined && v.now >= rule.z) return false;
  if (rule.q !== undefined) {
    const query = v.query;
    if (query === "") return false;
    // A query with no escapes spells every name as it decodes: one that does not contain a rule's
    // name cannot match, without parsing it.
    // Indexed loops: destructuring each pair in a for-of was most of a query rule's cost.
    const pairs = rule.q;
    if (query.indexOf("%") === -1 && query.indexOf("+") === -1) {
      for (let i = 0; i < pairs.length; i++) if (query.indexOf(pairs[i]![0]) === -1) return false;
    }
    const params = new URLSearchParams(query);
    for (let i = 0; i < pairs.length; i++) if (params.get(pairs[i]![0]) !== pairs[i]![1]) return false;
  }
  if (rule.d !== undefined && !rule.d.includes(v.device)) return false;
  if (rule.o !== undefined && (v.os === null || !rule.o.includes(v.os))) return false;
  if (rule.b !== undefined && (v.browser === null || !rule.b.includes(v.browser))) return false;
  if (rule.c !== undefined && (v.country === null || !rule.c.includes(v.country))) return false;
  if (rule.l !== undefined) {
    const lang = v.language;
    if (lang === null) return false;
    let any = false;
    for (let i = 0; i < rule.l.length && !any; i++) any = languageMatches(rule.l[i]!, lang);
    if (!any) return false;
  }
  return true;
}

/** The arm a visitor key falls in, by weight: the same key always gets the same arm. */
export function splitArm(arms: ReadonlyArray<readonly [string, number]>, key: number): number {
  let total = 0;
  for (const [, w] of arms) total += w;
  let point = (key >>> 0) % total;
  for (let i = 0; i < arms.length; i++) {
    point -= arms[i]![1];
    if (point < 0) return i;
  }
  return arms.length - 1;
}

function choose(url: string, s: SmartRecord, v: Visitor): Decision {
  if (s.i !== undefined || s.n !== undefined) {
    const os = v.os;
    if (os === "ios" && s.i !== undefined) return decision(s.i, "ios");
    if (os === "android" && s.n !== undefined) return decision(s.n, "android");
  }
  if (s.r !== undefined) {
    // A uniform record's rules in their flat form (uniform.ts): the same answer, fewer objects read.
    const t = (s as Partial<UniformSmartRecord>).t;
    if (t !== undefined) {
      const i = firstHolding(t, v);
      if (i !== -1) return decision(s.r[i]!.u, `rule:${i + 1}`);
    } else
      for (let i = 0; i < s.r.length; i++) {
        const rule = s.r[i]!;
        if (ruleHolds(rule, v)) return decision(rule.u, `rule:${i + 1}`);
      }
  }
  if (s.p !== undefined && s.p.length > 0) {
    const arm = splitArm(s.p, v.key);
    return decision(s.p[arm]![0], `split:${arm + 1}`);
  }
  return decision(url, "default");
}

/** The destination of a visit to a link whose own URL is `url` and smart part `s`. */
export function decide(url: string, s: SmartRecord | undefined, v: Visitor): Decision {
  if (s === undefined) return decision(url, "default");
  const d = choose(url, s, v);
  if (s.f === 1 && v.query !== "") d.url = forwardQuery(d.chosen, v.query);
  return d;
}

/** Where an expired link (by date or click limit) sends a visit: its expired_url, or null for 410. */
export function expiredDestination(s: SmartRecord | undefined, v: Pick<Visitor, "query">): string | null {
  if (s?.x === undefined) return null;
  return s.f === 1 && v.query !== "" ? forwardQuery(s.x, v.query) : s.x;
}
