// A form's labelled field and its buttons, the same on every dialog form (keys, webhooks, domains,
// campaigns, channels, overlays): the input, then either the server's message for that field or its
// hint, in one note the input points at (fieldAria), so a screen reader reads what went wrong.
import type { ComponentChildren } from "preact";

const noteId = (id: string) => `${id}-note`;

/** The input's aria attributes that go with FormField's note; spread them on the input. */
export const fieldAria = (id: string, error?: string | null, hint?: string) => ({
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
  hint?: string;
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
