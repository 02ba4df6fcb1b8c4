// Webhooks: the account's endpoints (URL, events, state), create one (its signing secret shown once),
// edit, rotate the secret, delete, turn off and back on (re-enabling one Kurz disabled after failures),
// and each endpoint's delivery log. Every wire shape is the contracts' (packages/contracts/src/webhooks.ts).
import {
  MAX_WEBHOOK_ENDPOINTS,
  WEBHOOK_DESCRIPTION_MAX_LENGTH,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_ROUTES,
  type Webhook,
  type WebhookEventType,
  type WebhookWithSecret,
} from "@kurz/contracts";
import { type Dispatch, type StateUpdater, useState } from "preact/hooks";
import { Link } from "wouter-preact";
import { invalidate, useQuery } from "../api/cache.ts";
import { call, fieldError } from "../api/client.ts";
import { useCan } from "../api/session.ts";
import { Confirm } from "../components/Confirm.tsx";
import { Dialog, DialogDone } from "../components/Dialog.tsx";
import { FormActions, FormField, fieldAria } from "../components/FormField.tsx";
import { RowButton } from "../components/RowButton.tsx";
import { SecretReveal } from "../components/SecretReveal.tsx";
import { TableCard } from "../components/TableCard.tsx";
import { Failed, fmtDate, Notice, PageHead } from "./common.tsx";
import "./data/data.css";

const EVENT_HINTS: Record<WebhookEventType, string> = {
  "link.created": "a link is created (dashboard, API, bulk or import)",
  "link.updated": "a link is changed",
  "link.deleted": "a link is deleted",
  "link.broken": "a link's destination fails two health checks in a row",
  "link.recovered": "a broken link's destination answers again",
  click: "someone follows a link (clicks arrive in batches)",
};

export function WebhookState({ hook }: { hook: Webhook }) {
  if (hook.enabled) return <span class="pill ok">Enabled</span>;
  return (
    <span class="pill warn" title={hook.disabled_at ? `Since ${fmtDate(hook.disabled_at)}` : undefined}>
      {hook.disabled_reason === "failing" ? "Disabled: kept failing" : "Disabled"}
    </span>
  );
}

const URL_HINT = "Kurz POSTs signed JSON here. It must be reachable on the public internet.";

function WebhookForm({
  hook,
  onSaved,
  onCancel,
}: {
  hook?: Webhook;
  onSaved: (saved: Webhook | WebhookWithSecret) => void;
  onCancel: () => void;
}) {
  const [url, setUrl] = useState(hook?.url ?? "");
  const [description, setDescription] = useState(hook?.description ?? "");
  const [events, setEvents] = useState<WebhookEventType[]>(hook?.events ?? ["link.created"]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const toggle = (type: WebhookEventType, on: boolean) =>
    setEvents((old) => (on ? [...old, type] : old.filter((t) => t !== type)));
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const body = { url: url.trim(), events, description: description.trim() || undefined };
    try {
      const { data } = hook
        ? await call(WEBHOOK_ROUTES.updateWebhook, {
            params: { id: hook.id },
            body: { ...body, description: description.trim() || null },
          })
        : await call(WEBHOOK_ROUTES.createWebhook, { body });
      invalidate("webhooks");
      onSaved(data);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  const urlError = fieldError(error, "url");
  const eventsError =
    fieldError(error, "events") ?? (events.length === 0 ? "Choose at least one event." : "");
  return (
    <form class="form" onSubmit={submit} noValidate>
      {error !== null && !urlError && !fieldError(error, "events") && <Failed error={error} />}
      <FormField id="hook-url" label="Endpoint URL" error={urlError} hint={URL_HINT}>
        <input
          id="hook-url"
          type="url"
          required
          inputMode="url"
          placeholder="https://hooks.example.com/kurz"
          value={url}
          onInput={(e) => setUrl(e.currentTarget.value)}
          {...fieldAria("hook-url", urlError, URL_HINT)}
        />
      </FormField>
      <fieldset class="field events" aria-describedby={eventsError ? "hook-events-error" : undefined}>
        <legend>Events</legend>
        {WEBHOOK_EVENT_TYPES.map((type) => (
          <label class="check" key={type}>
            <input
              type="checkbox"
              checked={events.includes(type)}
              onChange={(e) => toggle(type, e.currentTarget.checked)}
            />
            <span>
              <code>{type}</code> <span class="muted small">when {EVENT_HINTS[type]}</span>
            </span>
          </label>
        ))}
        {eventsError && (
          <p class="field-error" id="hook-events-error">
            {eventsError}
          </p>
        )}
      </fieldset>
      <FormField id="hook-description" label="Description (optional)">
        <input
          id="hook-description"
          maxLength={WEBHOOK_DESCRIPTION_MAX_LENGTH}
          placeholder="e.g. CRM sync"
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
        />
      </FormField>
      <FormActions
        busy={busy}
        disabled={events.length === 0}
        label={hook ? "Save changes" : "Create endpoint"}
        onCancel={onCancel}
      />
    </form>
  );
}

/** The one time a signing secret is on screen. */
function SigningSecretReveal({ hook, onDone }: { hook: WebhookWithSecret; onDone: () => void }) {
  return (
    <>
      <SecretReveal
        secret={hook.secret}
        intro="Copy the signing secret now: it is shown only once."
        copyLabel="Copy secret"
        testid="webhook-secret"
      >
        Verify each request's <code>webhook-signature</code> header with it (Standard Webhooks). Kurz keeps it
        encrypted and cannot show it again; rotate it if you lose it.
      </SecretReveal>
      <DialogDone onDone={onDone} />
    </>
  );
}

type DialogState =
  | null
  | "create"
  | { edit: Webhook }
  | { secret: WebhookWithSecret; rotated: boolean }
  | { rotate: Webhook }
  | { remove: Webhook };

export function WebhooksPage() {
  const list = useQuery("webhooks", () => call(WEBHOOK_ROUTES.listWebhooks).then((r) => r.data));
  const [dialog, setDialog] = useState<DialogState>(null);
  const [notice, setNotice] = useState("");
  const [rowError, setRowError] = useState<unknown>(null);
  const hooks = list.data ?? [];
  const canWrite = useCan("webhooks:write");
  const setEnabled = async (hook: Webhook, enabled: boolean) => {
    setRowError(null);
    try {
      await call(WEBHOOK_ROUTES.updateWebhook, { params: { id: hook.id }, body: { enabled } });
      invalidate("webhooks");
      setNotice(`${hook.url} is ${enabled ? "enabled" : "disabled"}.`);
    } catch (err) {
      setRowError(err);
    }
  };
  return (
    <>
      <PageHead title="Webhooks">
        {canWrite && (
          <button
            type="button"
            class="btn primary"
            disabled={hooks.length >= MAX_WEBHOOK_ENDPOINTS}
            onClick={() => setDialog("create")}
          >
            Add endpoint
          </button>
        )}
      </PageHead>
      <p class="muted">
        Kurz tells your servers about new, changed and deleted links and about clicks, signed and retried for
        24 hours. Up to {MAX_WEBHOOK_ENDPOINTS} endpoints.
      </p>
      <Notice text={notice} />
      <TableCard
        query={list}
        actionError={rowError}
        isEmpty={hooks.length === 0}
        loading="Loading endpoints"
        empty="No endpoints yet. Add one to hear about every link event."
        caption="Your webhook endpoints"
        columns={["Endpoint", ["Events", "col-hide"], "State"]}
        actions={canWrite}
      >
        <tbody>
          {hooks.map((h) => (
            <WebhookRow key={h.id} hook={h} canWrite={canWrite} onEnabled={setEnabled} onDialog={setDialog} />
          ))}
        </tbody>
      </TableCard>
      <WebhookDialogs dialog={dialog} setDialog={setDialog} onNotice={setNotice} />
    </>
  );
}

/** An endpoint with its events and state, and the buttons that act on it. */
function WebhookRow({
  hook: h,
  canWrite,
  onEnabled,
  onDialog,
}: {
  hook: Webhook;
  /** Whether the role may change endpoints (webhooks:write): otherwise the row has no buttons. */
  canWrite: boolean;
  onEnabled: (hook: Webhook, enabled: boolean) => void;
  onDialog: (dialog: DialogState) => void;
}) {
  return (
    <tr data-testid="webhook-row">
      <td class="hook-url">
        <Link href={`/dashboard/webhooks/${h.id}`}>{h.url}</Link>
        {h.description && <div class="muted small">{h.description}</div>}
        <div class="muted small">
          Secret <code>{h.secret_prefix}…</code>
        </div>
      </td>
      <td class="col-hide">
        {h.events.map((t) => (
          <span class="pill" key={t}>
            {t}
          </span>
        ))}
      </td>
      <td>
        <WebhookState hook={h} />
        {h.consecutive_failures > 0 && (
          <div class="muted small">{h.consecutive_failures} failed in a row</div>
        )}
      </td>
      {canWrite && <WebhookActions hook={h} onEnabled={onEnabled} onDialog={onDialog} />}
    </tr>
  );
}

function WebhookActions({
  hook: h,
  onEnabled,
  onDialog,
}: {
  hook: Webhook;
  onEnabled: (hook: Webhook, enabled: boolean) => void;
  onDialog: (dialog: DialogState) => void;
}) {
  return (
    <td class="actions row-actions">
      {h.enabled ? (
        <RowButton item={h.url} class="ghost" onClick={() => onEnabled(h, false)}>
          Disable
        </RowButton>
      ) : (
        <RowButton item={h.url} class="primary" onClick={() => onEnabled(h, true)}>
          Re-enable
        </RowButton>
      )}
      <RowButton item={h.url} onClick={() => onDialog({ edit: h })}>
        Edit
      </RowButton>
      <RowButton item={`of ${h.url}`} onClick={() => onDialog({ rotate: h })}>
        Rotate secret
      </RowButton>
      <RowButton item={h.url} class="danger-ghost" onClick={() => onDialog({ remove: h })}>
        Delete
      </RowButton>
    </td>
  );
}

/** The open dialog: the form to add or edit, the secret shown once, the rotate and delete confirmations. */
function WebhookDialogs({
  dialog,
  setDialog,
  onNotice,
}: {
  dialog: DialogState;
  setDialog: Dispatch<StateUpdater<DialogState>>;
  onNotice: (notice: string) => void;
}) {
  const d = dialog !== null && typeof dialog === "object" ? dialog : null;
  return (
    <>
      {dialog === "create" && (
        <Dialog title="Add webhook endpoint" onClose={() => setDialog(null)}>
          <WebhookForm
            onCancel={() => setDialog(null)}
            onSaved={(saved) => setDialog({ secret: saved as WebhookWithSecret, rotated: false })}
          />
        </Dialog>
      )}
      {d && "edit" in d && (
        <Dialog title="Edit webhook endpoint" onClose={() => setDialog(null)}>
          <WebhookForm
            hook={d.edit}
            onCancel={() => setDialog(null)}
            onSaved={() => {
              onNotice("Endpoint saved.");
              setDialog(null);
            }}
          />
        </Dialog>
      )}
      {d && "secret" in d && (
        <Dialog
          title={d.rotated ? "The new signing secret" : "Endpoint created"}
          onClose={() => setDialog(null)}
        >
          <SigningSecretReveal hook={d.secret} onDone={() => setDialog(null)} />
        </Dialog>
      )}
      {d && "rotate" in d && (
        <Confirm
          title="Rotate the signing secret?"
          confirmLabel="Rotate secret"
          onClose={() => setDialog((cur) => (cur === d ? null : cur))}
          onConfirm={async () => {
            const { data } = await call(WEBHOOK_ROUTES.rotateWebhookSecret, { params: { id: d.rotate.id } });
            invalidate("webhooks");
            setDialog({ secret: data, rotated: true });
          }}
        >
          <p>
            Requests to <code>{d.rotate.url}</code> are signed with a new secret from now on; your receiver
            must use it to verify them. The old secret stops working at once.
          </p>
        </Confirm>
      )}
      {d && "remove" in d && (
        <Confirm
          title="Delete this endpoint?"
          confirmLabel="Delete endpoint"
          danger
          onClose={() => setDialog((cur) => (cur === d ? null : cur))}
          onConfirm={async () => {
            await call(WEBHOOK_ROUTES.deleteWebhook, { params: { id: d.remove.id } });
            invalidate("webhooks");
            onNotice("Endpoint deleted.");
          }}
        >
          <p>
            <code>{d.remove.url}</code> gets no more events, and its delivery log is deleted. This cannot be
            undone.
          </p>
        </Confirm>
      )}
    </>
  );
}

export default WebhooksPage;
