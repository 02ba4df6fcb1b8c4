// The dialogs a managed resource's page opens (campaigns, channels, overlays): create and edit with the
// same form, one wide panel on an item (a campaign's or channel's links, an overlay's submissions), and
// delete with a confirmation; and the row buttons that open them. Pages keep their own list and say only
// what differs.
import type { ComponentChildren } from "preact";
import { ConfirmDelete } from "../../components/ConfirmDelete.tsx";
import { Dialog } from "../../components/Dialog.tsx";
import { RowButton } from "../../components/RowButton.tsx";

/** Which dialog is open, on which item. */
export type ManageDialog<T> = { kind: "create" } | { kind: "edit" | "panel" | "delete"; item: T } | null;

export function ManageDialogs<T extends { id: number; name: string }>({
  dialog,
  onClose,
  noun,
  wideForm,
  form,
  panel,
  remove,
  invalidates,
  deleteText,
}: {
  dialog: ManageDialog<T>;
  onClose: () => void;
  /** "campaign": titles "Create campaign", "Edit <name>", "Delete <name>?", button "Delete campaign". */
  noun: string;
  wideForm?: boolean;
  /** The create (no item) and edit form; it calls `done` when saved or cancelled. */
  form: (item: T | undefined, done: () => void) => ComponentChildren;
  /** The wide panel's title and content for an item. */
  panel?: { title: (item: T) => string; render: (item: T, done: () => void) => ComponentChildren };
  remove: (item: T) => Promise<unknown>;
  /** Cache keys the delete makes stale. */
  invalidates: string[];
  deleteText: ComponentChildren;
}) {
  if (dialog === null) return null;
  if (dialog.kind === "create")
    return (
      <Dialog title={`Create ${noun}`} onClose={onClose} wide={wideForm}>
        {form(undefined, onClose)}
      </Dialog>
    );
  const { item } = dialog;
  if (dialog.kind === "edit")
    return (
      <Dialog title={`Edit ${item.name}`} onClose={onClose} wide={wideForm}>
        {form(item, onClose)}
      </Dialog>
    );
  if (dialog.kind === "panel")
    return panel ? (
      <Dialog title={panel.title(item)} onClose={onClose} wide>
        {panel.render(item, onClose)}
      </Dialog>
    ) : null;
  return (
    <ConfirmDelete
      title={`Delete ${item.name}?`}
      confirmLabel={`Delete ${noun}`}
      onClose={onClose}
      remove={() => remove(item)}
      invalidates={invalidates}
    >
      {deleteText}
    </ConfirmDelete>
  );
}

/**
 * An item's buttons that open these dialogs: the panel's (when `panel` is given, e.g. "Links and
 * weights" of <name>), Edit and Delete. Each names its item for screen readers.
 */
export function ItemActions<T extends { name: string }>({
  item,
  open,
  panel,
}: {
  item: T;
  open: (dialog: ManageDialog<T>) => void;
  panel?: { label: string /** "of" or "to": how the hidden name follows the label. */; joiner: string };
}) {
  return (
    <>
      {panel && (
        <RowButton item={`${panel.joiner} ${item.name}`} onClick={() => open({ kind: "panel", item })}>
          {panel.label}
        </RowButton>
      )}
      <RowButton item={item.name} onClick={() => open({ kind: "edit", item })}>
        Edit
      </RowButton>
      <RowButton item={item.name} class="danger-ghost" onClick={() => open({ kind: "delete", item })}>
        Delete
      </RowButton>
    </>
  );
}
