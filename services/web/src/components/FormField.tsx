// A form's labelled field and its buttons, the same on every form (keys, webhooks, domains, campaigns,
// channels, overlays, account, import, export): the input, then either the server's message for that
// field or its hint, in one note the input points at (fieldAria), so a screen reader reads what went
// wrong. TextField and SelectField are the common inputs in one.
import type { ComponentChildren } from "preact";

const noteId = (id: string) => `${id}-note`;

/** The input's aria attributes that go with FormField's note; spread them on the input. */
export const fieldAria = (id: string, error?: string | null, hint?: ComponentChildren) => ({
  "aria-invalid": error ? true : undefined,
  "aria-describedby": error || hint ? noteId(id) : undefined,
});

export function FormField({
  id,
  label,
  error,
  hint,
  children,
}: {
  id: string;
  label: string;
  /** The server's message for this field; shown instead of the hint. */
  error?: string | null;
  hint?: ComponentChildren;
  children: ComponentChildren;
}) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children}
      {error ? (
        <p class="field-error" id={noteId(id)}>
          {error}
        </p>
      ) : (
        hint && (
          <p class="hint" id={noteId(id)}>
            {hint}
          </p>
        )
      )}
    </div>
  );
}

/**
 * A labelled text input (or, with `rows`, a text area) and its error or hint. `maxLength` comes from the
 * contract's limit for the field, so the form stops where the API would refuse.
 */
export function TextField({
  id,
  label,
  error,
  hint,
  value,
  onValue,
  type = "text",
  autoComplete,
  placeholder,
  required,
  maxLength,
  rows,
  disabled,
}: {
  id: string;
  label: string;
  error?: string | null;
  hint?: string;
  value: string;
  onValue: (value: string) => void;
  type?: "text" | "email" | "url" | "date" | "password";
  autoComplete?: "current-password" | "email";
  placeholder?: string;
  required?: boolean;
  maxLength?: number;
  rows?: number;
  disabled?: boolean;
}) {
  const common = { id, required, maxLength, placeholder, value, disabled, ...fieldAria(id, error, hint) };
  return (
    <FormField id={id} label={label} error={error} hint={hint}>
      {rows ? (
        <textarea {...common} rows={rows} onInput={(e) => onValue(e.currentTarget.value)} />
      ) : (
        <input
          {...common}
          type={type}
          autoComplete={autoComplete}
          onInput={(e) => onValue(e.currentTarget.value)}
        />
      )}
    </FormField>
  );
}

/** The person's current password, which a sensitive change asks for again ("Current password" unless named). */
export function CurrentPasswordField({
  id,
  label = "Current password",
  error,
  hint,
  value,
  onValue,
}: {
  id: string;
  label?: string;
  error?: string | null;
  hint?: string;
  value: string;
  onValue: (value: string) => void;
}) {
  return (
    <TextField
      id={id}
      label={label}
      error={error}
      hint={hint}
      type="password"
      autoComplete="current-password"
      required
      value={value}
      onValue={onValue}
    />
  );
}

/** A labelled choice of `options` (each a value and its words), with FormField's hint. */
export function SelectField<V extends string>({
  id,
  label,
  hint,
  value,
  options,
  onValue,
}: {
  id: string;
  label: string;
  hint?: ComponentChildren;
  value: V;
  options: readonly { value: V; label: string }[];
  onValue: (value: V) => void;
}) {
  return (
    <FormField id={id} label={label} hint={hint}>
      <select
        id={id}
        value={value}
        onChange={(e) => onValue(e.currentTarget.value as V)}
        {...fieldAria(id, null, hint)}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </FormField>
  );
}

/** Cancel and submit, at the foot of a dialog's form. */
export function FormActions({
  busy,
  label,
  onCancel,
  disabled,
}: {
  busy: boolean;
  label: string;
  onCancel: () => void;
  /** Also disabled while the form cannot be sent (e.g. no event chosen). */
  disabled?: boolean;
}) {
  return (
    <div class="dialog-actions">
      <button type="button" class="btn" onClick={onCancel}>
        Cancel
      </button>
      <button type="submit" class="btn primary" disabled={busy || disabled}>
        {label}
      </button>
    </div>
  );
}

/** A checkbox per option; ticking or clearing one answers the options now picked, in the options' order. */
export function Checkboxes<V extends string>({
  name,
  options,
  picked,
  onPick,
  label,
}: {
  name: string;
  options: readonly V[];
  picked: readonly V[];
  onPick: (picked: V[]) => void;
  label: (option: V) => ComponentChildren;
}) {
  return (
    <>
      {options.map((option) => (
        <label class="check" key={option}>
          <input
            type="checkbox"
            name={name}
            value={option}
            checked={picked.includes(option)}
            onChange={(e) => {
              const on = e.currentTarget.checked;
              onPick(options.filter((o) => (o === option ? on : picked.includes(o))));
            }}
          />
          {label(option)}
        </label>
      ))}
    </>
  );
}
