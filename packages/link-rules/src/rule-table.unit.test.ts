import {
  type CompiledRule,
  DEVICES,
  type Device,
  RULE_BROWSERS,
  RULE_OSES,
  type RuleBrowser,
  type RuleOs,
} from "@kurz/contracts";
import { describe, expect, it } from "vitest";
import { decide, ruleHolds } from "./decide.ts";
import { firstHolding, ruleTable } from "./rule-table.ts";
import { uniformSmartRecord } from "./uniform.ts";
import type { Visitor } from "./visitor.ts";

// A fixed generator: every run checks the same cases, and a failure names its seed.
function random(seed: number) {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const some = <T>(xs: readonly T[]): T[] => {
    const out = [...new Set(Array.from({ length: 1 + int(3) }, () => pick(xs)))];
    return out;
  };
  return { next, int, pick, some };
}

// Few values each, so that rules and visitors meet often.
const COUNTRIES = ["US", "DE", "AT", "JP", "KR", "FR"];
const LANGUAGES = ["en", "en-us", "de", "de-at", "pt-br", "pt", "ja", "fr"];
const QUERY_NAMES = ["ref", "utm_source", "a", "x y"];
const QUERY_VALUES = ["tw", "x", "1", ""];
const QUERIES = [
  "",
  "ref=tw",
  "utm_source=x",
  "a=1&ref=tw",
  "r%65f=tw",
  "x+y=1",
  "ref=twx",
  "xref=tw",
  "a",
  "a=1&a=2",
];
const T0 = Date.parse("2030-06-15T12:00:00.000Z");

function rule(r: ReturnType<typeof random>, i: number): CompiledRule {
  const out: CompiledRule = { u: `https://r.test/${i}` };
  const conditions = 1 + r.int(3);
  for (let k = 0; k < conditions; k++) {
    switch (r.int(8)) {
      case 0:
        out.d = r.some(DEVICES);
        break;
      case 1:
        out.o = r.some(RULE_OSES);
        break;
      case 2:
        out.b = r.some(RULE_BROWSERS);
        break;
      case 3:
        out.c = r.some(COUNTRIES);
        break;
      case 4:
        out.l = r.some(LANGUAGES);
        break;
      case 5:
        out.q = Array.from(
          { length: 1 + r.int(2) },
          () => [r.pick(QUERY_NAMES), r.pick(QUERY_VALUES)] as [string, string],
        );
        break;
      case 6:
        out.a = T0 + (r.int(3) - 1) * 1000;
        break;
      default:
        out.z = T0 + (r.int(3) - 1) * 1000;
    }
  }
  return out;
}

function visitor(r: ReturnType<typeof random>): Visitor {
  return {
    device: r.pick<Device>(DEVICES),
    os: r.int(5) === 0 ? null : r.pick<RuleOs>(RULE_OSES),
    browser: r.int(5) === 0 ? null : r.pick<RuleBrowser>(RULE_BROWSERS),
    country: r.int(5) === 0 ? null : r.pick(COUNTRIES),
    language: r.int(5) === 0 ? null : r.pick(LANGUAGES),
    query: r.pick(QUERIES),
    now: T0 + (r.int(3) - 1) * 1000,
    key: r.int(1000),
  };
}

const byRules = (rules: readonly CompiledRule[], v: Visitor) => rules.findIndex((rule) => ruleHolds(rule, v));

describe("ruleTable", () => {
  it("picks the rule ruleHolds picks, for generated rules and visitors", () => {
    let matched = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const r = random(seed);
      const rules = Array.from({ length: 1 + r.int(6) }, (_, i) => rule(r, i));
      const t = ruleTable(rules)!;
      expect(t, `seed ${seed}`).toBeDefined();
      const s = uniformSmartRecord({ r: rules, f: r.int(2) === 0 ? 1 : undefined });
      for (let k = 0; k < 50; k++) {
        const v = visitor(r);
        const want = byRules(rules, v);
        expect(firstHolding(t, v), `seed ${seed}, visitor ${k}`).toBe(want);
        expect(decide("https://a.test/", s, v)).toEqual(decide("https://a.test/", { r: rules, f: s.f }, v));
        if (want !== -1) matched++;
      }
    }
    // The generated cases exercise both answers.
    expect(matched).toBeGreaterThan(2000);
    expect(matched).toBeLessThan(18000);
  });

  it("reads each part of the visitor at most once, and only for rules that ask", () => {
    const reads: string[] = [];
    const v = new Proxy(
      {
        device: "desktop",
        os: "windows",
        browser: "chrome",
        country: "US",
        language: "en-us",
        query: "utm_source=x",
        now: T0,
        key: 1,
      },
      {
        get(target, name) {
          reads.push(String(name));
          return target[name as keyof typeof target];
        },
      },
    ) as Visitor;
    const rules: CompiledRule[] = [
      { u: "a", d: ["tablet"] },
      { u: "b", o: ["chromeos"] },
      { u: "c", c: ["JP", "KR"] },
      { u: "d", l: ["ja"] },
      { u: "e", q: [["ref", "tw"]] },
      { u: "f", c: ["DE"], l: ["de"] },
    ];
    expect(firstHolding(ruleTable(rules)!, v)).toBe(-1);
    expect(reads.sort()).toEqual(["browser", "country", "device", "language", "os", "query"]);
    reads.length = 0;
    expect(firstHolding(ruleTable([{ u: "a", d: ["tablet"] }])!, v)).toBe(-1);
    expect(reads.sort()).toEqual(["browser", "device", "os"]);
  });

  it("leaves to ruleHolds the rules no visitor can meet as spelled", () => {
    expect(ruleTable([{ u: "a", c: ["USA"] }])).toBeUndefined();
    expect(ruleTable([{ u: "a", d: ["watch" as Device] }])).toBeUndefined();
    const s = uniformSmartRecord({ r: [{ u: "https://b.test/", c: ["USA"] }] });
    expect(s.t).toBeUndefined();
    const v = {
      device: "desktop",
      os: null,
      browser: null,
      country: "USA",
      language: null,
      query: "",
      now: T0,
      key: 1,
    } as const;
    expect(decide("https://a.test/", s, v).destination).toBe("rule:1");
  });

  it("a table with no rules holds none", () => {
    expect(
      firstHolding(ruleTable([])!, {
        device: "desktop",
        os: null,
        browser: null,
        country: null,
        language: null,
        query: "",
        now: T0,
        key: 1,
      }),
    ).toBe(-1);
  });
});
