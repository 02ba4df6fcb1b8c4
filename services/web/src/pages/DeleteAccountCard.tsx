// "Delete my account", the account page's danger zone (docs/workspaces.md, "Leaving for good"). The
// dialog reads what would go from the server (GET /users/me/deletion-preview) and says it in words,
// offers the links export first, and asks for the password and the e-mail address typed again. A
// workspace others use goes only when its box is ticked; otherwise the server refuses, and the dialog
// suggests making someone else an owner. Afterwards this browser is signed out and sign-in says why.
import { ACCOUNT_DELETION_ROUTES, type DeletionPreview } from "@kurz/contracts";
import { useEffect, useState } from "preact/hooks";
import { Link, useLocation } from "wouter-preact";
import { ApiFailure, call, fieldError, messageOf } from "../api/client.ts";
import { setSession } from "../api/session.ts";
import { Dialog } from "../components/Dialog.tsx";
import { CurrentPasswordField, TextField } from "../components/FormField.tsx";
import { FormStatus } from "../components/FormStatus.tsx";

const plural = (n: number, one: string, many: string) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

function WhatGoes({ preview }: { preview: DeletionPreview }) {
  const { workspaces_deleted: deleted, workspaces_shared: shared, workspaces_left: left } = preview;
  return (
    <>
      {deleted.length + shared.length > 0 ? (
        <>
          <p>
            These workspaces are deleted with everything in them: links, clicks, domains, webhooks and keys.
          </p>
          <ul data-testid="workspaces-deleted">
            {[...deleted, ...shared].map((w) => (
              <li key={w.id}>
                <strong>{w.name}</strong> ({plural(w.links, "link", "links")}
                {w.other_members > 0 &&
                  `, used by ${plural(w.other_members, "other person", "other people")}`}
                )
              </li>
            ))}
          </ul>
        </>
      ) : (
        <p>No workspace is deleted: each one you are in has another owner.</p>
      )}
      {left.length > 0 && (
        <>
          <p>You leave these workspaces; they stay, and your API keys there stop working:</p>
          <ul data-testid="workspaces-left">
            {left.map((w) => (
              <li key={w.id}>
                <strong>{w.name}</strong> ({w.role})
              </li>
            ))}
          </ul>
        </>
      )}
      <p class="hint">
        The short codes of deleted links stay reserved for a while, so printed links and QR codes never lead
        to someone else's page.
      </p>
    </>
  );
}

function DeleteDialog({ onClose }: { onClose: () => void }) {
  const [preview, setPreview] = useState<DeletionPreview | null>(null);
  const [loadError, setLoadError] = useState<string | undefined>();
  const [password, setPassword] = useState("");
  const [typed, setTyped] = useState("");
  const [alsoShared, setAlsoShared] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [, navigate] = useLocation();

  useEffect(() => {
    call(ACCOUNT_DELETION_ROUTES.getDeletionPreview)
      .then((r) => setPreview(r.data))
      .catch((err: unknown) => setLoadError(messageOf(err)));
  }, []);

  const shared = preview?.workspaces_shared ?? [];
  const matches = preview !== null && typed.trim().toLowerCase() === preview.email;
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await call(ACCOUNT_DELETION_ROUTES.deleteUser, {
        body: {
          confirm: typed,
          current_password: password,
          ...(alsoShared ? { delete_shared_workspaces: true } : {}),
        },
      });
    } catch (err) {
      setBusy(false);
      setError(
        err instanceof ApiFailure && err.code === "FORBIDDEN"
          ? "The password is wrong."
          : (fieldError(err, "confirm") ?? messageOf(err)),
      );
      return;
    }
    setSession(null);
    navigate("/login?deleted=1", { replace: true });
  };

  return (
    <Dialog title="Delete your account" onClose={onClose} wide>
      {loadError && <FormStatus error={`Could not read what would be deleted: ${loadError}`} />}
      {!preview && !loadError && <p aria-busy="true">Reading what would be deleted…</p>}
      {preview && (
        <form class="form" onSubmit={submit} noValidate>
          <WhatGoes preview={preview} />
          <p class="warning" data-testid="export-offer">
            This cannot be undone. Keep a copy first:{" "}
            <Link href="/dashboard/export" onClick={onClose}>
              export your links
            </Link>{" "}
            (CSV or JSON) from each workspace.
          </p>
          {shared.length > 0 && (
            <>
              <p>
                You are the only owner of{" "}
                {shared.map((w, i) => (
                  <span key={w.id}>
                    {i > 0 && ", "}
                    <strong>{w.name}</strong>
                  </span>
                ))}
                , which other people use. To keep it for them, make one of them an owner on the Members page
                first.
              </p>
              <label class="check">
                <input
                  type="checkbox"
                  checked={alsoShared}
                  onChange={(e) => setAlsoShared(e.currentTarget.checked)}
                />
                Delete it anyway, for everyone in it
              </label>
            </>
          )}
          <CurrentPasswordField
            id="delete-password"
            label="Your password"
            value={password}
            onValue={setPassword}
          />
          <TextField
            id="delete-confirm"
            label={`Type your e-mail address (${preview.email}) to confirm`}
            type="email"
            required
            value={typed}
            onValue={setTyped}
          />
          <FormStatus error={error} />
          <div class="dialog-actions">
            <button type="button" class="btn" onClick={onClose}>
              Keep my account
            </button>
            <button
              type="submit"
              class="btn danger"
              disabled={busy || !matches || password === "" || (shared.length > 0 && !alsoShared)}
            >
              Delete my account
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}

export function DeleteAccountCard() {
  const [open, setOpen] = useState(false);
  return (
    <section class="card danger-zone" aria-labelledby="delete-account-title">
      <h2 class="card-title" id="delete-account-title">
        Delete my account
      </h2>
      <p class="muted">
        Removes you, and every workspace you alone own with everything in it. Workspaces with another owner
        stay.
      </p>
      <button type="button" class="btn danger" onClick={() => setOpen(true)}>
        Delete my account…
      </button>
      {open && <DeleteDialog onClose={() => setOpen(false)} />}
    </section>
  );
}
