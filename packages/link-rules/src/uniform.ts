// A smart record with every member present (undefined when absent), its rules likewise. The redirect
// keeps records in this form: `decide` then reads members of one shape, where records as parsed have
// as many shapes as combinations of members, and reads of many shapes cost V8 a lookup each (five rules
// with different conditions were a tenth of a smart visit's CPU in the redirect's benchmark). Its rules
// are also given in their flat form (`t`, rule-table.ts), which `decide` reads instead of `r`'s objects;
// being built from the record, it changes whenever the record does.
import type { CompiledRule, SmartRecord } from "@kurz/contracts";
import { type RuleTable, ruleTable } from "./rule-table.ts";

/** A smart record as the redirect keeps it: every member present, and its rules' flat form. */
export interface UniformSmartRecord extends SmartRecord {
  /** `r` as one RuleTable; undefined without rules or for rules it cannot hold. */
  t: RuleTable | undefined;
}

const uniformRule = (r: CompiledRule): CompiledRule => ({
  u: r.u,
  d: r.d,
  o: r.o,
  b: r.b,
  c: r.c,
  l: r.l,
  q: r.q,
  a: r.a,
  z: r.z,
});

/** `s` with all its members, in one order; what it means is unchanged. */
export function uniformSmartRecord(s: SmartRecord): UniformSmartRecord {
  return {
    r: s.r?.map(uniformRule),
    t: s.r === undefined ? undefined : ruleTable(s.r),
    p: s.p,
    f: s.f,
    i: s.i,
    n: s.n,
    x: s.x,
    m: s.m,
    g: s.g === undefined ? undefined : { t: s.g.t, d: s.g.d, i: s.g.i },
  };
}
