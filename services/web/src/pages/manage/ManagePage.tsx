// A managed resource's page (campaigns, channels, overlays): its head with the create button, its list,
// and the dialogs the page and each item's buttons open: create and edit with the same form, one wide
// panel on an item (a campaign's or channel's links, an overlay's submissions), and delete with a
// confirmation. Pages give their list and say only what differs. A role without the resource's write
// scope sees the list and the read-only panels, and none of the buttons that change anything.
import type { Scope } from "@kurz/contracts";
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { useCan } from "../../api/session.ts";
import { ConfirmDelete } from "../../components/ConfirmDelete.tsx";
import { Dialog } from "../../components/Dialog.tsx";
import { RowButton } from "../../components/RowButton.tsx";
import { ManageHead } from "./lists.tsx";

/** Which dialog is open, on which item. */
type ManageDialog<T> = { kind: "create" } | { kind: "edit" | "panel" | "delete"; item: T } | null;

/** An item's wide panel and the row button that opens it. */
interface ManagePanel<T> {
  /** The button's words; `joiner` ("of" or "to") puts the item's name after them for screen readers. */
  label: string;
  joiner: string;
  title: (item: T) => string;
  render: (item: T, done: () => void) => ComponentChildren;
  /** The panel only shows (an overlay's submissions): offered to roles that may only read. */
  readOnly?: boolean;
}

/** What the dialogs of a page need to know about its resource. */
interface ManageSpec<T> {
  /** "campaign": the button and title "Create campaign", "Edit <name>", "Delete <name>?", "Delete campaign". */
  noun: string;
  /** The scope creating, editing and deleting one needs (route-scopes.ts). */
  write: Scope;
  wideForm?: boolean;
  /** The create (no item) and edit form; it calls `done` when saved or cancelled. */
  form: (item: T | undefined, done: () => void) => ComponentChildren;
  panel?: ManagePanel<T>;
  remove: (item: T) => Promise<unknown>;
  /** Cache keys the delete makes stale. */
  invalidates: string[];
  deleteText: ComponentChildren;
}

/** An item's buttons, for its row or card: the panel's (unless `withPanel` is false), Edit and Delete. */
type Actions<T> = (item: T, withPanel?: boolean) => ComponentChildren;

export function ManagePage<T extends { id: number; name: string }>({
  title,
  intro,
  children,
  ...spec
}: ManageSpec<T> & {
  title: string;
  /** What the page is for, under its title. */
  intro: ComponentChildren;
  /** The list, with `actions` in each item. */
  children: (actions: Actions<T>) => ComponentChildren;
}) {
  const [dialog, setDialog] = useState<ManageDialog<T>>(null);
  const canWrite = useCan(spec.write);
  const panel = spec.panel && (canWrite || spec.panel.readOnly) ? spec.panel : undefined;
  const actions: Actions<T> = (item, withPanel = true) => (
    <ItemActions item={item} open={setDialog} panel={withPanel ? panel : undefined} canWrite={canWrite} />
  );
  return (
    <>
      <ManageHead
        title={title}
        action={canWrite ? `Create ${spec.noun}` : undefined}
        onAction={() => setDialog({ kind: "create" })}
      >
        {intro}
      </ManageHead>
      {children(actions)}
      <ManageDialogs dialog={dialog} onClose={() => setDialog(null)} spec={spec} />
    </>
  );
}

function ManageDialogs<T extends { id: number; name: string }>({
  dialog,
  onClose,
  spec: { noun, wideForm, form, panel, remove, invalidates, deleteText },
}: {
  dialog: ManageDialog<T>;
  onClose: () => void;
  spec: ManageSpec<T>;
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

/** Each button names its item for screen readers ("Edit Spring sale", "Links and weights of Spring sale"). */
function ItemActions<T extends { name: string }>({
  item,
  open,
  panel,
  canWrite,
}: {
  item: T;
  open: (dialog: ManageDialog<T>) => void;
  panel?: ManagePanel<T>;
  canWrite: boolean;
}) {
  return (
    <>
      {panel && (
        <RowButton item={`${panel.joiner} ${item.name}`} onClick={() => open({ kind: "panel", item })}>
          {panel.label}
        </RowButton>
      )}
      {canWrite && (
        <>
          <RowButton item={item.name} onClick={() => open({ kind: "edit", item })}>
            Edit
          </RowButton>
          <RowButton item={item.name} class="danger-ghost" onClick={() => open({ kind: "delete", item })}>
            Delete
          </RowButton>
        </>
      )}
    </>
  );
}
