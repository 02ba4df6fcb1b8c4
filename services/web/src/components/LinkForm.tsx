// Create or edit a link. Create sends every field CreateLinkBody has; edit only what UpdateLinkBody
// allows (the URL and the code are immutable). An expiry in the past needs a second click.
import {
  ALIAS_MAX_LENGTH,
  LINK_PASSWORD_MAX_LENGTH,
  type Link,
  TITLE_MAX_LENGTH,
  type UpdateLinkBody,
  V1_ROUTES,
} from "@kurz/contracts";
import { useState } from "preact/hooks";
import { invalidate } from "../api/cache.ts";
import { ApiFailure, call, fieldError, messageOf } from "../api/client.ts";
import { LinkExtras, type LinkExtrasValue } from "../pages/manage/LinkExtras.tsx";

/** `<input type="datetime-local">` value (local time) ⇄ ISO instant. */
const toLocalInput = (iso: string | null) => {
  if (!iso) return "";
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
const fromLocalInput = (v: string) => (v ? new Date(v).toISOString() : null);

interface Props {
  link?: Link;
  onDone: (link: Link) => void;
  onCancel: () => void;
}

export function LinkForm({ link, onDone, onCancel }: Props) {
  const editing = link !== undefined;
  const [url, setUrl] = useState("");
  const [alias, setAlias] = useState("");
  const [title, setTitle] = useState(link?.title ?? "");
  const [password, setPassword] = useState("");
  const [clearPassword, setClearPassword] = useState(false);
  const [expires, setExpires] = useState(toLocalInput(link?.expires_at ?? null));
  const [pastOk, setPastOk] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [extras, setExtras] = useState<LinkExtrasValue>({ domain: "", overlay: link?.overlay_id ?? null });

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
      let saved: Link;
      if (editing) {
        const body: UpdateLinkBody = {};
        if (title.trim() && title !== link.title) body.title = title;
        if (password) body.password = password;
        else if (clearPassword) body.password = null;
        if (toLocalInput(link.expires_at) !== expires) body.expires_at = expiresIso;
        if (extras.overlay !== link.overlay_id) body.overlay_id = extras.overlay;
        saved = (await call(V1_ROUTES.updateLink, { params: { id: link.id }, body })).data;
      } else {
        saved = (
          await call(V1_ROUTES.createLink, {
            body: {
              url: url.trim(),
              custom_alias: alias.trim() || undefined,
              title: title.trim() || undefined,
              password: password || undefined,
              expires_at: expiresIso ?? undefined,
              domain: extras.domain || undefined,
              overlay_id: extras.overlay ?? undefined,
            },
          })
        ).data;
      }
      invalidate("links", "summary", `link:${saved.id}`);
      onDone(saved);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  const err = (field: string) => fieldError(error, field);
  const general =
    error instanceof ApiFailure && error.code === "CONFLICT"
      ? "This alias is taken. Choose another."
      : error instanceof ApiFailure && error.code === "VALIDATION_ERROR"
        ? "Check the highlighted fields."
        : error !== null
          ? messageOf(error)
          : "";
  const field = (id: string, label: string, input: preact.JSX.Element, hint?: string) => {
    const message = err(id === "alias" ? "custom_alias" : id === "expires" ? "expires_at" : id);
    return (
      <div class="field">
        <label for={`lf-${id}`}>{label}</label>
        {input}
        {message ? (
          <p class="field-error" id={`lf-${id}-note`}>
            {message}
          </p>
        ) : (
          hint && (
            <p class="hint" id={`lf-${id}-note`}>
              {hint}
            </p>
          )
        )}
      </div>
    );
  };

  return (
    <form onSubmit={submit} class="form" noValidate>
      {general && (
        <p class="error" role="alert">
          {general}
        </p>
      )}
      {!editing &&
        field(
          "url",
          "Destination URL",
          <input
            id="lf-url"
            type="url"
            required
            placeholder="https://example.com/page"
            value={url}
            onInput={(e) => setUrl(e.currentTarget.value)}
            aria-invalid={err("url") ? true : undefined}
            aria-describedby="lf-url-note"
          />,
        )}
      {!editing &&
        field(
          "alias",
          "Custom alias (optional)",
          <input
            id="lf-alias"
            maxLength={ALIAS_MAX_LENGTH}
            value={alias}
            onInput={(e) => setAlias(e.currentTarget.value)}
            aria-invalid={err("custom_alias") ? true : undefined}
            aria-describedby="lf-alias-note"
          />,
          "Letters, digits and hyphens. Leave empty for a generated code.",
        )}
      {field(
        "title",
        "Title (optional)",
        <input
          id="lf-title"
          maxLength={TITLE_MAX_LENGTH}
          value={title}
          onInput={(e) => setTitle(e.currentTarget.value)}
          aria-describedby="lf-title-note"
        />,
        editing ? undefined : "Fetched from the page when left empty.",
      )}
      {field(
        "password",
        editing && link.has_password ? "New password (optional)" : "Password (optional)",
        <input
          id="lf-password"
          type="password"
          autoComplete="new-password"
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
          aria-invalid={err("password") ? true : undefined}
          aria-describedby="lf-password-note"
        />,
        `Visitors must enter it. Up to ${LINK_PASSWORD_MAX_LENGTH} characters.`,
      )}
      {editing && link.has_password && (
        <label class="check">
          <input
            type="checkbox"
            checked={clearPassword}
            onChange={(e) => setClearPassword(e.currentTarget.checked)}
          />
          Remove the password
        </label>
      )}
      <LinkExtras editing={editing} value={extras} onChange={setExtras} />
      {field(
        "expires",
        "Expires (optional)",
        <input
          id="lf-expires"
          type="datetime-local"
          value={expires}
          onInput={(e) => {
            setExpires(e.currentTarget.value);
            setPastOk(false);
          }}
          aria-describedby="lf-expires-note"
        />,
        "Your local time. After it, the link stops redirecting.",
      )}
      {inPast && pastOk && (
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
          {busy ? "Saving…" : inPast && pastOk ? "Save anyway" : editing ? "Save changes" : "Create link"}
        </button>
      </div>
    </form>
  );
}
