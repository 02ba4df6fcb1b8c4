// The workspace switcher in the top bar: a disclosure saying who is signed in and listing their
// workspaces (name and role), the one acted in marked. Choosing one makes every request name it (client.ts) and draws the
// pages afresh; "New workspace" creates one the user owns and switches to it.
import { type Session, WORKSPACE_NAME_MAX_LENGTH, WORKSPACE_ROUTES } from "@kurz/contracts";
import { useRef, useState } from "preact/hooks";
import { call, fieldError } from "../api/client.ts";
import { switchWorkspace } from "../api/session.ts";
import { Failed } from "../pages/common.tsx";
import { Dialog } from "./Dialog.tsx";
import { FormActions, TextField } from "./FormField.tsx";
import { useEscape } from "./useEscape.ts";
import { useSubmit } from "./useSubmit.ts";

function NewWorkspace({ onDone }: { onDone: () => void }) {
  const [name, setName] = useState("");
  const { busy, error, submit } = useSubmit(async () => {
    const { data } = await call(WORKSPACE_ROUTES.createWorkspace, { body: { name } });
    await switchWorkspace(data.id);
    onDone();
  });
  const nameError = fieldError(error, "name");
  return (
    <form class="form" onSubmit={submit} noValidate>
      {error !== null && !nameError && <Failed error={error} />}
      <TextField
        id="workspace-name"
        label="Name"
        hint="You will be its owner; invite others from Settings, Members."
        error={nameError}
        required
        maxLength={WORKSPACE_NAME_MAX_LENGTH}
        value={name}
        onValue={setName}
      />
      <FormActions busy={busy} label="Create workspace" onCancel={onDone} />
    </form>
  );
}

export function WorkspaceSwitcher({ session }: { session: Session }) {
  const [open, setOpen] = useState(false);
  const [creating, setCreating] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const box = useRef<HTMLDivElement>(null);
  useEscape(open, () => {
    setOpen(false);
    button.current?.focus();
  });
  const current = session.workspaces.find((w) => w.id === session.account_id);
  return (
    <div
      class="switcher"
      ref={box}
      // Focus leaving the switcher (Tab onward, a click elsewhere) closes it.
      onFocusOut={(e) => {
        if (!box.current?.contains(e.relatedTarget as Node | null)) setOpen(false);
      }}
    >
      <button
        ref={button}
        type="button"
        class="btn small switcher-button"
        aria-expanded={open}
        aria-controls="workspace-list"
        onClick={() => setOpen(!open)}
      >
        <span class="sr-only">Workspace: </span>
        <span class="switcher-current">{current?.name ?? "Workspace"}</span>
        <span class="caret" aria-hidden="true" />
      </button>
      <div id="workspace-list" class="switcher-panel" hidden={!open} tabIndex={-1}>
        <p class="switcher-who">
          Signed in as <strong>{session.email}</strong>
        </p>
        <ul aria-label="Workspaces">
          {session.workspaces.map((w) => (
            <li key={w.id}>
              <button
                type="button"
                class="switcher-item"
                aria-current={w.id === session.account_id ? "true" : undefined}
                onClick={() => {
                  setOpen(false);
                  button.current?.focus();
                  if (w.id !== session.account_id) void switchWorkspace(w.id);
                }}
              >
                <span class="switcher-name">{w.name}</span> <span class="switcher-role">{w.role}</span>
              </button>
            </li>
          ))}
        </ul>
        <button
          type="button"
          class="btn small block"
          onClick={() => {
            setOpen(false);
            setCreating(true);
          }}
        >
          New workspace
        </button>
      </div>
      {creating && (
        <Dialog title="New workspace" onClose={() => setCreating(false)}>
          <NewWorkspace onDone={() => setCreating(false)} />
        </Dialog>
      )}
    </div>
  );
}
