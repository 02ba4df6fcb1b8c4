// The manage pages' form pieces: labelled fields (components/FormField.tsx, with its hint wired to the
// input for screen readers), the submit handling with its failure above the buttons, and the buttons.
import { useState } from "preact/hooks";
import { messageOf } from "../../api/client.ts";
import { FormField, fieldAria } from "../../components/FormField.tsx";

export { FormActions, FormField as Field } from "../../components/FormField.tsx";

/**
 * A text input (or, with `rows`, a text area) and its label and hint. `maxLength` comes from the
 * contract's limit for the field, so the form stops where the API would refuse.
 */
export function TextField({
  id,
  label,
  hint,
  value,
  onValue,
  type = "text",
  required,
  maxLength,
  rows,
}: {
  id: string;
  label: string;
  hint?: string;
  value: string;
  onValue: (value: string) => void;
  type?: "text" | "url";
  required?: boolean;
  maxLength?: number;
  rows?: number;
}) {
  const common = { id, required, maxLength, value, ...fieldAria(id, null, hint) };
  return (
    <FormField id={id} label={label} hint={hint}>
      {rows ? (
        <textarea {...common} rows={rows} onInput={(e) => onValue(e.currentTarget.value)} />
      ) : (
        <input {...common} type={type} onInput={(e) => onValue(e.currentTarget.value)} />
      )}
    </FormField>
  );
}

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
