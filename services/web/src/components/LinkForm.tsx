// Create or edit a link. Create sends every field CreateLinkBody has; edit only what UpdateLinkBody
// allows (the URL and the code are immutable). An expiry in the past needs a second click. The smart
// members (rules, split, forwarding, limits, app links, the preview) and the UTM builder are folded
// sections whose editors load when first opened; the draft they edit lives here, so a save sends it.
import {
  ALIAS_MAX_LENGTH,
  LINK_PASSWORD_MAX_LENGTH,
  type Link,
  SMART_LINK_MEMBERS,
  TITLE_MAX_LENGTH,
  type UpdateLinkBody,
  V1_ROUTES,
} from "@kurz/contracts";
import { useState } from "preact/hooks";
import { invalidate, useQuery } from "../api/cache.ts";
import { ApiFailure, call, fieldError, messageOf } from "../api/client.ts";
import { LinkExtras, type LinkExtrasValue } from "../pages/manage/LinkExtras.tsx";
import { FormField, TextField } from "./FormField.tsx";
import {
  createBody,
  draftIsSmart,
  draftOf,
  errorAt,
  fromLocalInput,
  localStep,
  type SmartDraft,
  toLocalInput,
  updateBody,
} from "./smart/draft.ts";
import { SmartEditor, UtmBuilder } from "./smart/lazy.tsx";

interface Props {
  link?: Link;
  onDone: (link: Link) => void;
  onCancel: () => void;
}

/** What the form holds when it is sent. */
interface LinkFields {
  url: string;
  alias: string;
  title: string;
  password: string;
  clearPassword: boolean;
  expires: string;
  brokenUrl: string;
  extras: LinkExtrasValue;
  smart: SmartDraft;
}

/** Creates the link, or sends to `link` only the fields that changed. */
async function saveLink(link: Link | undefined, f: LinkFields): Promise<Link> {
  const expiresIso = fromLocalInput(f.expires);
  if (link) {
    const body: UpdateLinkBody = {};
    if (f.title.trim() && f.title !== link.title) body.title = f.title;
    if (f.password) body.password = f.password;
    else if (f.clearPassword) body.password = null;
    if (toLocalInput(link.expires_at) !== f.expires) body.expires_at = expiresIso;
    if (f.extras.overlay !== link.overlay_id) body.overlay_id = f.extras.overlay;
    if (f.brokenUrl.trim() !== (link.broken_url ?? "")) body.broken_url = f.brokenUrl.trim() || null;
    Object.assign(body, updateBody(link, f.smart));
    return (await call(V1_ROUTES.updateLink, { params: { id: link.id }, body })).data;
  }
  return (
    await call(V1_ROUTES.createLink, {
      body: {
        url: f.url.trim(),
        custom_alias: f.alias.trim() || undefined,
        title: f.title.trim() || undefined,
        password: f.password || undefined,
        expires_at: expiresIso ?? undefined,
        domain: f.extras.domain || undefined,
        overlay_id: f.extras.overlay ?? undefined,
        broken_url: f.brokenUrl.trim() || undefined,
        ...createBody(f.smart),
      },
    })
  ).data;
}

/** The sentence above the form for a failed save; the fields show their own errors. */
function generalMessage(error: unknown): string {
  if (error instanceof ApiFailure && error.code === "CONFLICT") return "This alias is taken. Choose another.";
  if (error instanceof ApiFailure && error.code === "VALIDATION_ERROR")
    return "Check the highlighted fields.";
  return error !== null ? messageOf(error) : "";
}

export function LinkForm({ link, onDone, onCancel }: Props) {
  const editing = link !== undefined;
  const [url, setUrl] = useState("");
  const [alias, setAlias] = useState("");
  const [title, setTitle] = useState(link?.title ?? "");
  const [password, setPassword] = useState("");
  const [clearPassword, setClearPassword] = useState(false);
  const [expires, setExpires] = useState(toLocalInput(link?.expires_at ?? null));
  const [brokenUrl, setBrokenUrl] = useState(link?.broken_url ?? "");
  const [pastOk, setPastOk] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [extras, setExtras] = useState<LinkExtrasValue>({ domain: "", overlay: link?.overlay_id ?? null });
  const [smart, setSmart] = useState<SmartDraft>(() => draftOf(link));
  const [smartOpen, setSmartOpen] = useState(false);

  const expiresIso = fromLocalInput(expires);
  const changedExpiry = toLocalInput(link?.expires_at ?? null) !== expires;
  const inPast = changedExpiry && expiresIso !== null && Date.parse(expiresIso) <= Date.now();

  const submit = async (e: Event) => {
    e.preventDefault();
    if (inPast && !pastOk) {
      setPastOk(true);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const saved = await saveLink(link, {
        url,
        alias,
        title,
        password,
        clearPassword,
        expires,
        brokenUrl,
        extras,
        smart,
      });
      // The account counts its links, and its copy may be this form's (the forwarding default).
      invalidate("links", "summary", `link:${saved.id}`, "account");
      onDone(saved);
    } catch (err) {
      setError(err);
      // A refused smart member opens its section to show it.
      if (SMART_LINK_MEMBERS.some((f) => errorAt(err, [f]))) setSmartOpen(true);
      setBusy(false);
    }
  };

  const err = (field: string) => fieldError(error, field);
  const general = generalMessage(error);

  return (
    <form onSubmit={submit} class="form" noValidate>
      {general && (
        <p class="error" role="alert">
          {general}
        </p>
      )}
      {!editing && <NewLinkFields url={url} onUrl={setUrl} alias={alias} onAlias={setAlias} err={err} />}
      {!editing && <UtmFold url={url} onUrl={setUrl} />}
      <TextField
        id="lf-title"
        label="Title (optional)"
        error={err("title")}
        hint={editing ? undefined : "Fetched from the page when left empty."}
        maxLength={TITLE_MAX_LENGTH}
        value={title}
        onValue={setTitle}
      />
      <PasswordFields
        hasPassword={editing && link.has_password}
        password={password}
        onPassword={setPassword}
        clear={clearPassword}
        onClear={setClearPassword}
        err={err}
      />
      <LinkExtras editing={editing} value={extras} onChange={setExtras} />
      <ExpiryField
        value={expires}
        message={err("expires_at")}
        onChange={(v) => {
          setExpires(v);
          setPastOk(false);
        }}
      />
      <TextField
        id="lf-broken-url"
        type="url"
        label="When the destination is broken (optional)"
        error={err("broken_url")}
        hint="Where visitors go while the destination fails its health checks (two in a row). Empty: the destination as usual."
        placeholder="https://example.com/temporarily-unavailable"
        value={brokenUrl}
        onValue={setBrokenUrl}
      />
      <SmartFold
        open={smartOpen}
        onOpen={setSmartOpen}
        draft={smart}
        onDraft={setSmart}
        error={error}
        url={link?.original_url ?? url}
        title={title}
      />
      <FormActions
        confirmPast={inPast && pastOk}
        busy={busy}
        submitLabel={editing ? "Save changes" : "Create link"}
        onCancel={onCancel}
      />
    </form>
  );
}

/** The smart members' editor, folded; it loads when first opened, and a refused member opens it. */
function SmartFold({
  open,
  onOpen,
  draft,
  onDraft,
  error,
  url,
  title,
}: {
  open: boolean;
  onOpen: (open: boolean) => void;
  draft: SmartDraft;
  onDraft: (draft: SmartDraft) => void;
  error: unknown;
  url: string;
  title: string;
}) {
  // The account's default for forwarding a visit's query (true unless it was turned off).
  const account = useQuery("account", () => call(V1_ROUTES.getAccount).then((r) => r.data));
  return (
    <details class="fold" open={open} onToggle={(e) => onOpen(e.currentTarget.open)}>
      <summary>Smart destinations{draftIsSmart(draft) && <span class="pill">Set</span>}</summary>
      {open && (
        <SmartEditor
          value={draft}
          onChange={onDraft}
          error={error}
          url={url}
          title={title}
          accountForward={account.data?.forward_query ?? true}
        />
      )}
    </details>
  );
}

/** The UTM builder, folded; it loads when first opened. */
function UtmFold({ url, onUrl }: { url: string; onUrl: (url: string) => void }) {
  const [open, setOpen] = useState(false);
  return (
    <details class="fold" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>UTM parameters</summary>
      {open && <UtmBuilder url={url} onUrl={onUrl} />}
    </details>
  );
}

interface ExpiryProps {
  value: string;
  message: string | undefined;
  onChange: (value: string) => void;
}

function ExpiryField({ value, message, onChange }: ExpiryProps) {
  return (
    <FormField
      id="lf-expires"
      label="Expires (optional)"
      error={message}
      hint="Your local time. After it, the link stops redirecting."
    >
      <input
        id="lf-expires"
        type="datetime-local"
        step={localStep(value)}
        value={value}
        onInput={(e) => onChange(e.currentTarget.value)}
        aria-describedby="lf-expires-note"
      />
    </FormField>
  );
}

/** Cancel and submit; `confirmPast` asks for a second submit of an expiry already past. */
function FormActions({
  confirmPast,
  busy,
  submitLabel,
  onCancel,
}: {
  confirmPast: boolean;
  busy: boolean;
  submitLabel: string;
  onCancel: () => void;
}) {
  return (
    <>
      {confirmPast && (
        <p class="warning" role="alert">
          This expiry is in the past: the link will stop working as soon as it is saved. Save again to
          confirm.
        </p>
      )}
      <div class="dialog-actions">
        <button type="button" class="btn" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" class="btn primary" disabled={busy}>
          {busy ? "Saving…" : confirmPast ? "Save anyway" : submitLabel}
        </button>
      </div>
    </>
  );
}

type FieldErrorOf = (field: string) => string | undefined;

/** The destination and the code, set only when the link is created. */
function NewLinkFields({
  url,
  onUrl,
  alias,
  onAlias,
  err,
}: {
  url: string;
  onUrl: (url: string) => void;
  alias: string;
  onAlias: (alias: string) => void;
  err: FieldErrorOf;
}) {
  return (
    <>
      <FormField id="lf-url" label="Destination URL" error={err("url")}>
        <input
          id="lf-url"
          type="url"
          required
          placeholder="https://example.com/page"
          value={url}
          onInput={(e) => onUrl(e.currentTarget.value)}
          aria-invalid={err("url") ? true : undefined}
          aria-describedby="lf-url-note"
        />
      </FormField>
      <FormField
        id="lf-alias"
        label="Custom alias (optional)"
        error={err("custom_alias")}
        hint="Letters, digits and hyphens. Leave empty for a generated code."
      >
        <input
          id="lf-alias"
          maxLength={ALIAS_MAX_LENGTH}
          value={alias}
          onInput={(e) => onAlias(e.currentTarget.value)}
          aria-invalid={err("custom_alias") ? true : undefined}
          aria-describedby="lf-alias-note"
        />
      </FormField>
    </>
  );
}

/** A new password, and for a link that has one, the choice to remove it. */
function PasswordFields({
  hasPassword,
  password,
  onPassword,
  clear,
  onClear,
  err,
}: {
  hasPassword: boolean;
  password: string;
  onPassword: (password: string) => void;
  clear: boolean;
  onClear: (clear: boolean) => void;
  err: FieldErrorOf;
}) {
  return (
    <>
      <FormField
        id="lf-password"
        label={hasPassword ? "New password (optional)" : "Password (optional)"}
        error={err("password")}
        hint={`Visitors must enter it. Up to ${LINK_PASSWORD_MAX_LENGTH} characters.`}
      >
        <input
          id="lf-password"
          type="password"
          autoComplete="new-password"
          value={password}
          onInput={(e) => onPassword(e.currentTarget.value)}
          aria-invalid={err("password") ? true : undefined}
          aria-describedby="lf-password-note"
        />
      </FormField>
      {hasPassword && (
        <label class="check">
          <input type="checkbox" checked={clear} onChange={(e) => onClear(e.currentTarget.checked)} />
          Remove the password
        </label>
      )}
    </>
  );
}
