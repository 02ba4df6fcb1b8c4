// The link form's branded domain (on create) and CTA overlay choices, shown only when the
// account has a verified domain or an overlay to choose.
import { SelectField } from "../../components/FormField.tsx";
import { hostOptions, useList, useVerifiedHosts } from "./lists.tsx";

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
  const hosts = useVerifiedHosts(!editing);
  const ctas = useList("overlays").data ?? [];
  return (
    <>
      {!editing && hosts.length > 0 && (
        <SelectField
          id="lf-domain"
          label="Domain"
          value={value.domain}
          options={hostOptions(hosts)}
          onValue={(domain) => onChange({ ...value, domain })}
        />
      )}
      {(ctas.length > 0 || value.overlay !== null) && (
        <SelectField
          id="lf-overlay"
          label="CTA overlay (optional)"
          value={value.overlay === null ? "" : String(value.overlay)}
          options={[
            { value: "", label: "None" },
            ...ctas.map((o) => ({ value: String(o.id), label: `${o.name} (${o.type})` })),
          ]}
          onValue={(id) => onChange({ ...value, overlay: id ? Number(id) : null })}
        />
      )}
    </>
  );
}
