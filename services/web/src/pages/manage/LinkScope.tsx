// The links table's domain and channel filters. They live in the address (?domain=,
// ?channel=), so a channel's or domain's "links" button opens the table already filtered.
import { useLocation, useSearch } from "wouter-preact";
import { useList } from "./lists.tsx";

export function useLinkScope(): { domain?: string; channel?: string } {
  const params = new URLSearchParams(useSearch());
  return { domain: params.get("domain") || undefined, channel: params.get("channel") || undefined };
}

export function LinkScopeFilters() {
  const scope = useLinkScope();
  const [, navigate] = useLocation();
  const verified = (useList("domains").data ?? []).filter((d) => d.status === "verified");
  const channels = useList("channels").data ?? [];
  const set = (name: "domain" | "channel", value: string) => {
    const next = new URLSearchParams();
    for (const [k, v] of Object.entries({ ...scope, [name]: value })) if (v) next.set(k, v);
    const q = next.toString();
    navigate(`/dashboard/links${q ? `?${q}` : ""}`);
  };
  return (
    <>
      {(verified.length > 0 || scope.domain) && (
        <label>
          <span class="sr-only">Domain</span>
          <select value={scope.domain ?? ""} onChange={(e) => set("domain", e.currentTarget.value)}>
            <option value="">All domains</option>
            {scope.domain && !verified.some((d) => new URL(d.domain).host === scope.domain) && (
              <option value={scope.domain}>{scope.domain}</option>
            )}
            {verified.map((d) => (
              <option key={d.id} value={new URL(d.domain).host}>
                {new URL(d.domain).host}
              </option>
            ))}
          </select>
        </label>
      )}
      {(channels.length > 0 || scope.channel) && (
        <label>
          <span class="sr-only">Channel</span>
          <select value={scope.channel ?? ""} onChange={(e) => set("channel", e.currentTarget.value)}>
            <option value="">All channels</option>
            {channels.map((c) => (
              <option key={c.id} value={String(c.id)}>
                {c.name}
              </option>
            ))}
          </select>
        </label>
      )}
    </>
  );
}
