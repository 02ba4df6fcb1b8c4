// The manage pages' form pieces: labelled fields (components/FormField.tsx, with its hint wired to the
// input for screen readers) and a colour picker, the submit handling with its failure above the
// buttons, and ManageForm, the create and edit form that saves, refreshes the list and closes.
import type { ComponentChildren } from "preact";
import { invalidate } from "../../api/cache.ts";
import { messageOf } from "../../api/client.ts";
import { FormActions, FormField } from "../../components/FormField.tsx";
import { useSubmit as useFormSubmit } from "../../components/useSubmit.ts";

export { FormField as Field, TextField } from "../../components/FormField.tsx";

/** A colour picker and its label; the value is `#rrggbb`. */
export function ColorField({
  id,
  label,
  value,
  onValue,
}: {
  id: string;
  label: string;
  value: string;
  onValue: (value: string) => void;
}) {
  return (
    <FormField id={id} label={label}>
      <input id={id} type="color" value={value} onInput={(e) => onValue(e.currentTarget.value)} />
    </FormField>
  );
}

/** Runs `action` on submit; shows its failure in an alert above the form's buttons. */
export function useSubmit(action: () => Promise<void>) {
  const { busy, error, submit } = useFormSubmit(action);
  return { busy, error: error ? messageOf(error) : "", onSubmit: submit };
}

export function FormError({ error }: { error: string }) {
  return error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;
}

/**
 * A create or edit dialog's form: `save` sends it; once saved, the `stale` list is fetched again and
 * `onDone` gets what `save` answered (nothing on Cancel). Its failure shows above the fields.
 */
export function ManageForm<T>({
  save,
  stale,
  label,
  onDone,
  children,
}: {
  save: () => Promise<T | undefined>;
  /** The cache key of the list the change shows in. */
  stale: string;
  /** The submit button's words. */
  label: string;
  onDone: (saved?: T) => void;
  children: ComponentChildren;
}) {
  const { busy, error, onSubmit } = useSubmit(async () => {
    const saved = await save();
    invalidate(stale);
    onDone(saved);
  });
  return (
    <form class="form" onSubmit={onSubmit} noValidate>
      <FormError error={error} />
      {children}
      <FormActions busy={busy} label={label} onCancel={() => onDone()} />
    </form>
  );
}
