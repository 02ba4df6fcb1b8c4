// Pieces the domain, campaign, channel and overlay pages share: a labelled field, a form dialog's
// submit handling and buttons, and the account's links for pickers.
import { LEGACY_LIMIT_MAX, V1_ROUTES } from "@kurz/contracts";
import { useEffect, useState } from "preact/hooks";
import { invalidate, useQuery } from "../../api/cache.ts";
import { call, messageOf } from "../../api/client.ts";

/** The older API's list routes page at most this many; the dashboard asks for one full page. */
export const LIST_QUERY = { limit: String(LEGACY_LIMIT_MAX) };
/** The same for the v1 list routes (overlays). */
export const V1_LIST_QUERY = { page: "1", per_page: "100" };

/** The dashboard's form field and buttons (components/FormField.tsx), under the names these pages use. */
export { FormActions, FormField as Field } from "../../components/FormField.tsx";

/**
 * The page's list, refetched on every visit: scripts change the same data through the API, so a copy
 * cached on an earlier visit is shown only until the fresh one arrives.
 */
export function useFreshQuery<T>(key: string, fetcher: () => Promise<T>) {
  const query = useQuery(key, fetcher);
  useEffect(() => invalidate(key), [key]);
  return query;
}

/** Runs `action` on submit; shows its failure in an alert above the form's buttons. */
export function useSubmit(action: () => Promise<void>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const onSubmit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError("");
    try {
      await action();
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, onSubmit };
}

export function FormError({ error }: { error: string }) {
  return error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;
}

/** The account's most recent links (for "assign a link" pickers). */
export function useRecentLinks() {
  const query = V1_LIST_QUERY;
  return useQuery(`links?${JSON.stringify(query)}`, () => call(V1_ROUTES.listLinks, { query }));
}

export function LinkPicker({
  id,
  value,
  onChange,
  exclude = new Set<string>(),
}: {
  id: string;
  value: string;
  onChange: (v: string) => void;
  exclude?: Set<string>;
}) {
  const links = useRecentLinks();
  const options = (links.data?.data ?? []).filter((l) => !exclude.has(l.id));
  return (
    <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value)} required>
      <option value="">{links.data ? "Choose a link" : "Loading links…"}</option>
      {options.map((l) => (
        <option key={l.id} value={l.id}>
          {l.short_code}
          {l.title ? ` — ${l.title}` : ` — ${l.original_url}`}
        </option>
      ))}
    </select>
  );
}
