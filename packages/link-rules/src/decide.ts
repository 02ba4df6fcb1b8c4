// Where a visit goes: app links for their platform, then the first rule whose every condition holds,
// then the split arm of this visitor, then the link's own URL; the visit's query added when the link
// forwards it. Expiry and the click limit are the redirect's (they need the clock and a counter).
import type { CompiledRule, Destination, SmartRecord } from "@kurz/contracts";
import { languageMatches } from "./accept-language.ts";
import { forwardQuery } from "./forward-query.ts";
import type { Visitor } from "./visitor.ts";

export interface Decision {
  url: string;
  destination: Destination;
}

/** Whether every condition of `rule` holds for `v`; conditions are checked cheapest first. */
export function ruleHolds(rule: CompiledRule, v: Visitor): boolean {
  if (rule.a !== undefined && v.now < rule.a) return false;
  if (rule.z !== undefined && v.now >= rule.z) return false;
  if (rule.q !== undefined) {
    const query = v.query;
    if (query === "") return false;
    // A query with no escapes spells every name as it decodes: one that does not contain a rule's
    // name cannot match, without parsing it.
    if (query.indexOf("%") === -1 && query.indexOf("+") === -1) {
      for (const [name] of rule.q) if (query.indexOf(name) === -1) return false;
    }
    const params = new URLSearchParams(query);
    for (const [name, value] of rule.q) if (params.get(name) !== value) return false;
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
    if (os === "ios" && s.i !== undefined) return { url: s.i, destination: "ios" };
    if (os === "android" && s.n !== undefined) return { url: s.n, destination: "android" };
  }
  if (s.r !== undefined) {
    for (let i = 0; i < s.r.length; i++) {
      const rule = s.r[i]!;
      if (ruleHolds(rule, v)) return { url: rule.u, destination: `rule:${i + 1}` };
    }
  }
  if (s.p !== undefined && s.p.length > 0) {
    const arm = splitArm(s.p, v.key);
    return { url: s.p[arm]![0], destination: `split:${arm + 1}` };
  }
  return { url, destination: "default" };
}

/** The destination of a visit to a link whose own URL is `url` and smart part `s`. */
export function decide(url: string, s: SmartRecord | undefined, v: Visitor): Decision {
  if (s === undefined) return { url, destination: "default" };
  const decision = choose(url, s, v);
  if (s.f === 1 && v.query !== "") decision.url = forwardQuery(decision.url, v.query);
  return decision;
}

/** Where an expired link (by date or click limit) sends a visit: its expired_url, or null for 410. */
export function expiredDestination(s: SmartRecord | undefined, v: Pick<Visitor, "query">): string | null {
  if (s?.x === undefined) return null;
  return s.f === 1 && v.query !== "" ? forwardQuery(s.x, v.query) : s.x;
}
