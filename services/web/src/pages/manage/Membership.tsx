// A resource's links (a campaign's, a channel's): add one with the link picker, remove one, and a new
// version after each change so the member list is fetched again, never answered from before the change.
import { V1_ROUTES } from "@kurz/contracts";
import { useState } from "preact/hooks";
import { useQuery } from "../../api/cache.ts";
import { call, messageOf } from "../../api/client.ts";
import { Field, FormError, useSubmit } from "./forms.tsx";
import { V1_LIST_QUERY } from "./lists.tsx";

export function useMembership({
  assign,
  remove,
  onChanged,
}: {
  assign: (linkId: string) => Promise<unknown>;
  remove: (linkId: string) => Promise<unknown>;
  /** Other views the change affects (the links table's channel filter). */
  onChanged?: () => void;
}) {
  const [version, setVersion] = useState(0);
  const [linkId, setLinkId] = useState("");
  const [removeError, setRemoveError] = useState("");
  const changed = () => {
    setVersion((v) => v + 1);
    onChanged?.();
  };
  const { busy, error, onSubmit } = useSubmit(async () => {
    if (!linkId) throw new Error("Choose a link to add.");
    await assign(linkId);
    setLinkId("");
    changed();
  });
  const removeLink = async (id: string) => {
    setRemoveError("");
    await remove(id).then(changed, (err: unknown) => setRemoveError(messageOf(err)));
  };
  return { version, linkId, setLinkId, busy, error: error || removeError, onSubmit, removeLink };
}

export type Membership = ReturnType<typeof useMembership>;

/** "Add a link": the picker (without the current members) and the submit button. */
export function AddLinkForm({
  id,
  submitLabel,
  exclude,
  membership: m,
}: {
  id: string;
  submitLabel: string;
  exclude: Set<string>;
  membership: Membership;
}) {
  return (
    <form class="form inline-form" onSubmit={m.onSubmit} noValidate>
      <FormError error={m.error} />
      <Field id={id} label="Add a link">
        <LinkPicker id={id} value={m.linkId} onChange={m.setLinkId} exclude={exclude} />
      </Field>
      <button type="submit" class="btn primary" disabled={m.busy}>
        {submitLabel}
      </button>
    </form>
  );
}

export function RemoveLinkButton({ code, onRemove }: { code: string; onRemove: () => void }) {
  return (
    <button type="button" class="btn small danger-ghost" onClick={onRemove}>
      Remove<span class="sr-only"> {code}</span>
    </button>
  );
}

/** The account's most recent links, to choose one from. */
function useRecentLinks() {
  const query = V1_LIST_QUERY;
  return useQuery(`links?${JSON.stringify(query)}`, () => call(V1_ROUTES.listLinks, { query }));
}

function LinkPicker({
  id,
  value,
  onChange,
  exclude,
}: {
  id: string;
  value: string;
  onChange: (v: string) => void;
  exclude: Set<string>;
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
