// A link's smart members as the redirect reads them (SmartRecord): URLs in Location form, times in
// epoch ms, languages in lower case, so the redirect never parses the owner's text per visit.
import {
  type CompiledRule,
  canonicalLanguage,
  type LinkRule,
  type SmartRecord,
  type SplitArm,
  toLocation,
} from "@kurz/contracts";

/** The smart members of a stored link (the link object's form). */
export interface SmartLinkSource {
  rules?: readonly LinkRule[] | null | undefined;
  split?: readonly SplitArm[] | null | undefined;
  forward_query?: boolean | null | undefined;
  max_clicks?: number | null | undefined;
  expired_url?: string | null | undefined;
  og?: { title?: string | null; description?: string | null; image?: string | null } | null | undefined;
  ios_url?: string | null | undefined;
  android_url?: string | null | undefined;
}

export interface CompileOptions {
  /** The absolute URL an uploaded Open Graph image is served at. */
  imageUrl: (imageId: string) => string;
}

export function compileRule(rule: LinkRule): CompiledRule {
  const w = rule.when;
  const out: CompiledRule = { u: toLocation(rule.url) };
  if (w.device) out.d = [...w.device];
  if (w.os) out.o = [...w.os];
  if (w.browser) out.b = [...w.browser];
  if (w.country) out.c = [...w.country];
  if (w.language) out.l = w.language.map((t) => (canonicalLanguage(t) ?? t).toLowerCase());
  if (w.query) out.q = Object.entries(w.query);
  if (w.after !== undefined) out.a = Date.parse(w.after);
  if (w.before !== undefined) out.z = Date.parse(w.before);
  return out;
}

/** The record's `s` member, or undefined for a link that redirects as a plain one. */
export function compileSmartLink(src: SmartLinkSource, options: CompileOptions): SmartRecord | undefined {
  const s: SmartRecord = {};
  if (src.rules && src.rules.length > 0) s.r = src.rules.map(compileRule);
  if (src.split && src.split.length > 0) s.p = src.split.map((arm) => [toLocation(arm.url), arm.weight]);
  if (src.forward_query) s.f = 1;
  if (src.ios_url) s.i = toLocation(src.ios_url);
  if (src.android_url) s.n = toLocation(src.android_url);
  if (src.expired_url) s.x = toLocation(src.expired_url);
  if (src.max_clicks != null) s.m = src.max_clicks;
  if (src.og && (src.og.title || src.og.description || src.og.image)) {
    s.g = {};
    if (src.og.title) s.g.t = src.og.title;
    if (src.og.description) s.g.d = src.og.description;
    if (src.og.image) s.g.i = options.imageUrl(src.og.image);
  }
  return Object.keys(s).length === 0 ? undefined : s;
}
