// The link form's branded domain (on create) and CTA overlay choices, shown only when the
// account has a verified domain or an overlay to choose.
import { ROUTES } from "@kurz/contracts";
import { useQuery } from "../../api/cache.ts";
import { call } from "../../api/client.ts";
import { LIST_QUERY, V1_LIST_QUERY } from "./lists.tsx";

export interface LinkExtrasValue {
  /** Host of a verified branded domain; "" for the service's own host. */
  domain: string;
  overlay: number | null;
}

export function LinkExtras({
  editing,
  value,
  onChange,
}: {
  editing: boolean;
  value: LinkExtrasValue;
  onChange: (v: LinkExtrasValue) => void;
}) {
  const domains = useQuery(editing ? null : "domains", () =>
    call(ROUTES.legacyListDomains, { query: LIST_QUERY }),
  );
  const overlays = useQuery("overlays", () => call(ROUTES.listOverlays, { query: V1_LIST_QUERY }));
  const hosts = (domains.data?.data.domains ?? [])
    .filter((d) => d.status === "verified")
    .map((d) => new URL(d.domain).host);
  const ctas = overlays.data?.data ?? [];
  return (
    <>
      {!editing && hosts.length > 0 && (
        <div class="field">
          <label for="lf-domain">Domain</label>
          <select
            id="lf-domain"
            value={value.domain}
            onChange={(e) => onChange({ ...value, domain: e.currentTarget.value })}
          >
            <option value="">{location.host} (default)</option>
            {hosts.map((h) => (
              <option key={h} value={h}>
                {h}
              </option>
            ))}
          </select>
        </div>
      )}
      {(ctas.length > 0 || value.overlay !== null) && (
        <div class="field">
          <label for="lf-overlay">CTA overlay (optional)</label>
          <select
            id="lf-overlay"
            value={value.overlay === null ? "" : String(value.overlay)}
            onChange={(e) =>
              onChange({ ...value, overlay: e.currentTarget.value ? Number(e.currentTarget.value) : null })
            }
          >
            <option value="">None</option>
            {ctas.map((o) => (
              <option key={o.id} value={String(o.id)}>
                {o.name} ({o.type})
              </option>
            ))}
          </select>
        </div>
      )}
    </>
  );
}
