// Whether a destination lets another site frame it (decision 0026), read from the headers of its
// answer: `X-Frame-Options` (any value: DENY and SAMEORIGIN both refuse us, ALLOW-FROM is obsolete and
// browsers ignore it, so it is read as a refusal too) and CSP `frame-ancestors` (only a policy that
// names `*` lets an unknown site frame it; `'self'`, `'none'` or a list of hosts refuses us). Anything
// unclear is "no": the visitor then gets the interstitial, which always works.

export interface HeaderSource {
  get(name: string): string | null;
}

export function allowsFraming(headers: HeaderSource): boolean {
  if ((headers.get("x-frame-options") ?? "").trim() !== "") return false;
  const csp = headers.get("content-security-policy");
  if (csp === null) return true;
  // Several policies arrive joined with commas; every one of them must allow it.
  for (const policy of csp.split(",")) {
    for (const directive of policy.split(";")) {
      const [name, ...sources] = directive.trim().split(/\s+/);
      if (name?.toLowerCase() !== "frame-ancestors") continue;
      if (!sources.some((s) => s === "*")) return false;
    }
  }
  return true;
}
