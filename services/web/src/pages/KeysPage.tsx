// API keys: the account's keys (GET /account/usage), a new key shown once, revoke with confirmation.
// Creating a key asks for the password: a key keeps working after sign-out, so a session alone
// (a cookie someone else got hold of) must not be enough to make one (docs/security.md). A key may do
// everything its creator's role allows, or only the scopes picked for it; everyone revokes their own
// keys, admins anyone's.
import {
  type ApiKeyItem,
  type CreatedApiKey,
  KEY_NAME_MAX_LENGTH,
  MAX_ACTIVE_KEYS,
  ROLE_SCOPES,
  ROLES,
  type Scope,
  V1_ROUTES,
} from "@kurz/contracts";
import { useState } from "preact/hooks";
import { invalidate, useQuery } from "../api/cache.ts";
import { ApiFailure, call, fieldError, messageOf } from "../api/client.ts";
import { useCan, useSession } from "../api/session.ts";
import { ConfirmDelete } from "../components/ConfirmDelete.tsx";
import { Dialog, DialogDone } from "../components/Dialog.tsx";
import { Checkboxes, CurrentPasswordField, FormActions, TextField } from "../components/FormField.tsx";
import { KeyReveal } from "../components/KeyReveal.tsx";
import { RowButton } from "../components/RowButton.tsx";
import { TableCard } from "../components/TableCard.tsx";
import { Failed, fmtDate, PageHead } from "./common.tsx";
import "./data/data.css";

const EXPIRES_HINT = "The key stops working at the end of this day.";
const PASSWORD_HINT = "A key keeps working after you sign out, so creating one needs your password.";

function CreateKey({ onCreated, onCancel }: { onCreated: (k: CreatedApiKey) => void; onCancel: () => void }) {
  const [name, setName] = useState("");
  const [expires, setExpires] = useState("");
  const [password, setPassword] = useState("");
  // null: everything the creator's role allows, now and as the role's scopes are.
  const [picked, setPicked] = useState<Scope[] | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const { data } = await call(V1_ROUTES.createApiKey, {
        body: {
          name: name.trim(),
          expires_at: expires ? new Date(`${expires}T23:59:59`).toISOString() : undefined,
          scopes: picked ?? undefined,
          current_password: password,
        },
      });
      invalidate("usage");
      onCreated(data);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  const nameError = fieldError(error, "name");
  // The server refuses a wrong password with 403 (a 401 would mean the session ended).
  const passwordError =
    error instanceof ApiFailure && error.code === "FORBIDDEN"
      ? messageOf(error)
      : fieldError(error, "current_password");
  return (
    <form class="form" onSubmit={submit} noValidate>
      {error !== null && !nameError && !passwordError && <Failed error={error} />}
      <TextField
        id="key-name"
        label="Name"
        error={nameError}
        required
        maxLength={KEY_NAME_MAX_LENGTH}
        placeholder="e.g. CI, newsletter script"
        value={name}
        onValue={setName}
      />
      <TextField
        id="key-expires"
        label="Expires (optional)"
        hint={EXPIRES_HINT}
        type="date"
        value={expires}
        onValue={setExpires}
      />
      <ScopePicker picked={picked} onPick={setPicked} error={fieldError(error, "scopes")} />
      <CurrentPasswordField
        id="key-password"
        label="Your password"
        error={passwordError}
        hint={PASSWORD_HINT}
        value={password}
        onValue={setPassword}
      />
      <FormActions busy={busy} label="Create key" onCancel={onCancel} />
    </form>
  );
}

/** Full access (the default), or only some of the scopes the signed-in person's role grants. */
function ScopePicker({
  picked,
  onPick,
  error,
}: {
  picked: Scope[] | null;
  onPick: (scopes: Scope[] | null) => void;
  error: string | undefined;
}) {
  const session = useSession();
  const granted = session ? ROLE_SCOPES[session.role] : [];
  return (
    <fieldset class="sections key-scopes">
      <legend>Access</legend>
      <label class="check">
        <input type="radio" name="key-access" checked={picked === null} onChange={() => onPick(null)} />
        Everything you may do in this workspace
      </label>
      <label class="check">
        <input
          type="radio"
          name="key-access"
          checked={picked !== null}
          onChange={() => onPick(granted.filter((s) => s.endsWith(":read")))}
        />
        Only what you pick
      </label>
      {picked !== null && (
        <div class="scope-grid">
          <Checkboxes
            name="scope"
            options={granted}
            picked={picked}
            onPick={onPick}
            label={(scope) => <code>{scope}</code>}
          />
        </div>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </fieldset>
  );
}

/** What a key may do, in a few words: a role's whole access ("Admin access") or its scopes. */
function accessOf(key: ApiKeyItem): string {
  const scopes = key.scopes ?? ROLE_SCOPES.owner;
  const role = ROLES.find(
    (r) => ROLE_SCOPES[r].length === scopes.length && ROLE_SCOPES[r].every((s) => scopes.includes(s)),
  );
  if (role) return `${role[0]!.toUpperCase()}${role.slice(1)} access`;
  return ROLE_SCOPES.owner.filter((s) => scopes.includes(s)).join(", ");
}

export function KeysPage() {
  const session = useSession();
  const isAdmin = useCan("workspace:admin");
  const usage = useQuery("usage", () => call(V1_ROUTES.getUsage).then((r) => r.data));
  const [dialog, setDialog] = useState<"create" | { created: CreatedApiKey } | { revoke: ApiKeyItem } | null>(
    null,
  );
  const keys = usage.data?.keys ?? [];
  const expired = (k: ApiKeyItem) => k.expires_at !== null && Date.parse(k.expires_at) <= Date.now();
  return (
    <>
      <PageHead title="API keys">
        <button
          type="button"
          class="btn primary"
          disabled={(usage.data?.active_keys ?? 0) >= MAX_ACTIVE_KEYS}
          onClick={() => setDialog("create")}
        >
          Create key
        </button>
      </PageHead>
      <p class="muted">
        Keys let scripts and apps use the API as you.{" "}
        {usage.data && `${usage.data.active_keys} of ${MAX_ACTIVE_KEYS} active.`}
      </p>
      <TableCard
        query={usage}
        isEmpty={keys.length === 0}
        loading="Loading keys"
        empty="No active keys."
        caption="Your API keys"
        columns={[
          "Name",
          "Key",
          ["Created", "col-hide"],
          "Last used",
          ["Expires", "col-hide"],
          ["Limits", "col-hide"],
        ]}
        actions
      >
        <tbody>
          {keys.map((k) => (
            <tr key={k.id} data-testid="key-row">
              <td>
                {k.name}
                <div class="muted small">{accessOf(k)}</div>
              </td>
              <td>
                <code>{k.key_prefix}…</code>
              </td>
              <td class="col-hide">{fmtDate(k.created_at)}</td>
              <td>{fmtDate(k.last_used_at)}</td>
              <td class="col-hide">
                {expired(k) ? <span class="pill off">Expired</span> : fmtDate(k.expires_at)}
              </td>
              <td class="col-hide small">
                {k.rate_limit_per_minute}/min · {k.rate_limit_per_hour}/h
              </td>
              <td class="actions">
                {(isAdmin || k.created_by === session?.user_id) && (
                  <RowButton item={k.name} class="danger-ghost" onClick={() => setDialog({ revoke: k })}>
                    Revoke
                  </RowButton>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </TableCard>
      {dialog === "create" && (
        <Dialog title="Create API key" onClose={() => setDialog(null)}>
          <CreateKey onCancel={() => setDialog(null)} onCreated={(created) => setDialog({ created })} />
        </Dialog>
      )}
      {dialog !== null && typeof dialog === "object" && "created" in dialog && (
        <Dialog title="Your new API key" onClose={() => setDialog(null)}>
          <KeyReveal apiKey={dialog.created} intro="Copy it now: it is shown only once." />
          <DialogDone onDone={() => setDialog(null)} />
        </Dialog>
      )}
      {dialog !== null && typeof dialog === "object" && "revoke" in dialog && (
        <ConfirmDelete
          title={`Revoke “${dialog.revoke.name}”?`}
          confirmLabel="Revoke key"
          onClose={() => setDialog(null)}
          remove={() => call(V1_ROUTES.revokeApiKey, { params: { id: dialog.revoke.id } })}
          invalidates={["usage"]}
        >
          <p>
            Requests with <code>{dialog.revoke.key_prefix}…</code> will be refused from now on. This cannot be
            undone.
          </p>
        </ConfirmDelete>
      )}
    </>
  );
}
