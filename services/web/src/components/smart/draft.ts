// The link form's smart members as the person edits them (strings, ordered rows), and the wire shapes
// they become: SmartLinkInput for create and update, the link object's SmartLinkFields back into a
// draft. Kept apart from the editor (SmartEditor.tsx, loaded when opened) so a link is saved, and an
// edit form filled, without loading it.
import type {
  CreateLinkBody,
  Device,
  Link,
  LinkRule,
  RuleBrowser,
  RuleOs,
  UpdateLinkBody,
} from "@kurz/contracts";
import { ApiFailure } from "../../api/client.ts";

export interface QueryPair {
  name: string;
  value: string;
}

export interface RuleDraft {
  /** Stable across reordering, for Preact's keys and the rows' element ids. */
  key: number;
  device: Device[];
  os: RuleOs[];
  browser: RuleBrowser[];
  /** Comma-separated codes as typed (`DE, AT`). */
  country: string;
  language: string;
  query: QueryPair[];
  /** `<input type="datetime-local">` values, local time. */
  after: string;
  before: string;
  url: string;
}

export interface ArmDraft {
  key: number;
  url: string;
  weight: string;
}

export interface SmartDraft {
  rules: RuleDraft[];
  split: ArmDraft[];
  /** undefined: the account's default (not sent on create). */
  forwardQuery: boolean | undefined;
  maxClicks: string;
  expiredUrl: string;
  iosUrl: string;
  androidUrl: string;
  ogTitle: string;
  ogDescription: string;
  /** The uploaded image's id and where the dashboard shows it. */
  ogImage: { id: string; src: string } | null;
}

let nextKey = 1;
export const newKey = (): number => nextKey++;

export const emptyRule = (): RuleDraft => ({
  key: newKey(),
  device: [],
  os: [],
  browser: [],
  country: "",
  language: "",
  query: [],
  after: "",
  before: "",
  url: "",
});

export const emptyArm = (): ArmDraft => ({ key: newKey(), url: "", weight: "50" });

/**
 * `<input type="datetime-local">` value (local time) ⇄ ISO instant. Seconds and milliseconds are kept
 * when the instant has them, so an edit that does not touch the field sends it back unchanged; such a
 * value needs the input's `step` to allow it (localStep).
 */
export const toLocalInput = (iso: string | null | undefined): string => {
  if (!iso) return "";
  const d = new Date(iso);
  const local = new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString();
  return local.slice(0, d.getMilliseconds() !== 0 ? 23 : d.getSeconds() !== 0 ? 19 : 16);
};
/** The `step` a datetime-local input needs for `value`: minutes by default, any when it has seconds. */
export const localStep = (value: string): "any" | undefined => (value.length > 16 ? "any" : undefined);
export const fromLocalInput = (v: string): string | null => {
  if (!v) return null;
  const t = new Date(v);
  return Number.isNaN(t.getTime()) ? v : t.toISOString();
};

/** Where an uploaded image is shown in the dashboard: its API path on this origin (img-src 'self'). */
export const imageSrc = (id: string): string => `/api/v1/images/${encodeURIComponent(id)}`;

export function draftOf(link: Link | undefined): SmartDraft {
  return {
    rules: (link?.rules ?? []).map((r) => ({
      key: newKey(),
      device: [...(r.when.device ?? [])],
      os: [...(r.when.os ?? [])],
      browser: [...(r.when.browser ?? [])],
      country: (r.when.country ?? []).join(", "),
      language: (r.when.language ?? []).join(", "),
      query: Object.entries(r.when.query ?? {}).map(([name, value]) => ({ name, value })),
      after: toLocalInput(r.when.after),
      before: toLocalInput(r.when.before),
      url: r.url,
    })),
    split: (link?.split ?? []).map((a) => ({ key: newKey(), url: a.url, weight: String(a.weight) })),
    forwardQuery: link?.forward_query,
    maxClicks: link?.max_clicks == null ? "" : String(link.max_clicks),
    expiredUrl: link?.expired_url ?? "",
    iosUrl: link?.ios_url ?? "",
    androidUrl: link?.android_url ?? "",
    ogTitle: link?.og?.title ?? "",
    ogDescription: link?.og?.description ?? "",
    ogImage: link?.og?.image ? { id: link.og.image, src: imageSrc(link.og.image) } : null,
  };
}

const codes = (s: string) =>
  s
    .split(",")
    .map((c) => c.trim())
    .filter((c) => c !== "");

/** A rule as the API takes it; empty conditions are left out (the API refuses a rule with none). */
export function ruleOf(r: RuleDraft): LinkRule {
  const when: Record<string, unknown> = {};
  if (r.device.length) when.device = r.device;
  if (r.os.length) when.os = r.os;
  if (r.browser.length) when.browser = r.browser;
  const country = codes(r.country).map((c) => c.toUpperCase());
  if (country.length) when.country = country;
  const language = codes(r.language);
  if (language.length) when.language = language;
  const pairs = r.query.filter((p) => p.name.trim() !== "" || p.value !== "");
  if (pairs.length) when.query = Object.fromEntries(pairs.map((p) => [p.name.trim(), p.value]));
  const after = fromLocalInput(r.after);
  if (after) when.after = after;
  const before = fromLocalInput(r.before);
  if (before) when.before = before;
  return { when: when as LinkRule["when"], url: r.url.trim() };
}

type SmartBody = Pick<
  CreateLinkBody & UpdateLinkBody,
  "rules" | "split" | "forward_query" | "max_clicks" | "expired_url" | "og" | "ios_url" | "android_url"
>;

/** Every smart member the draft sets, null where it sets none (an update removes it). */
function fullBody(d: SmartDraft): Required<Omit<SmartBody, "forward_query">> {
  const arms = d.split.filter((a) => a.url.trim() !== "" || a.weight.trim() !== "");
  const og = {
    title: d.ogTitle.trim() || null,
    description: d.ogDescription.trim() || null,
    image: d.ogImage?.id ?? null,
  };
  const num = (s: string) => (s.trim() === "" ? null : Number(s));
  return {
    rules: d.rules.length ? d.rules.map(ruleOf) : null,
    split: arms.length ? arms.map((a) => ({ url: a.url.trim(), weight: Number(a.weight) })) : null,
    max_clicks: num(d.maxClicks),
    expired_url: d.expiredUrl.trim() || null,
    og: og.title || og.description || og.image ? og : null,
    ios_url: d.iosUrl.trim() || null,
    android_url: d.androidUrl.trim() || null,
  };
}

/** The smart members of a create: only those set. */
export function createBody(d: SmartDraft): SmartBody {
  const out: SmartBody = {};
  for (const [k, v] of Object.entries(fullBody(d))) if (v !== null) (out as Record<string, unknown>)[k] = v;
  if (d.forwardQuery !== undefined) out.forward_query = d.forwardQuery;
  return out;
}

/** The smart members of an update: only those that differ from the link (null removes one). */
export function updateBody(link: Link, d: SmartDraft): SmartBody {
  const before = fullBody(draftOf(link));
  const after = fullBody(d);
  const out: SmartBody = {};
  for (const k of Object.keys(after) as (keyof typeof after)[])
    if (JSON.stringify(after[k]) !== JSON.stringify(before[k]))
      (out as Record<string, unknown>)[k] = after[k];
  if (d.forwardQuery !== undefined && d.forwardQuery !== link.forward_query)
    out.forward_query = d.forwardQuery;
  return out;
}

/** Whether the draft sets anything, so the section says so while it is closed. */
export const draftIsSmart = (d: SmartDraft): boolean => Object.keys(createBody(d)).length > 0;

/**
 * Every validation message at `path` of a VALIDATION_ERROR's tree and below it (a list of country
 * codes reports each bad entry under its index), joined; undefined when none.
 */
export function errorAt(err: unknown, path: (string | number)[]): string | undefined {
  if (!(err instanceof ApiFailure) || err.code !== "VALIDATION_ERROR") return undefined;
  let node: unknown = err.details;
  for (const p of path) {
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as Record<string, unknown>)[String(p)];
  }
  const found: string[] = [];
  const walk = (n: unknown) => {
    if (typeof n !== "object" || n === null) return;
    for (const [k, v] of Object.entries(n)) {
      if (k === "_errors" && Array.isArray(v)) found.push(...(v as string[]));
      else walk(v);
    }
  };
  walk(node);
  return found.length ? [...new Set(found)].join(" ") : undefined;
}

/** Only the messages at `path` itself, not those of its members. */
export function ownErrorAt(err: unknown, path: (string | number)[]): string | undefined {
  if (!(err instanceof ApiFailure) || err.code !== "VALIDATION_ERROR") return undefined;
  let node: unknown = err.details;
  for (const p of path) {
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as Record<string, unknown>)[String(p)];
  }
  const own = (node as { _errors?: string[] } | undefined)?._errors;
  return own?.length ? own.join(" ") : undefined;
}
