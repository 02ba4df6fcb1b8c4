// Branded domains: add one (scheme + host), publish the DNS TXT record shown, verify,
// see its status and when it was last checked, set its root and 404 redirects, delete it (with its
// links, which the confirmation counts).
// Data: the older API's /api/domains routes with the session (one store with the API).
import { type LegacyDomain, ROUTES } from "@kurz/contracts";
import { useState } from "preact/hooks";
import { Link } from "wouter-preact";
import { invalidate } from "../../api/cache.ts";
import { call, messageOf } from "../../api/client.ts";
import { useCan } from "../../api/session.ts";
import { ConfirmDelete } from "../../components/ConfirmDelete.tsx";
import { CopyButton } from "../../components/CopyButton.tsx";
import { Dialog, DialogDone } from "../../components/Dialog.tsx";
import { RowButton } from "../../components/RowButton.tsx";
import { fmtDate } from "../common.tsx";
import "./manage.css";
import { ManageForm, TextField } from "./forms.tsx";
import { CardList, ManageHead, useFreshList } from "./lists.tsx";

const KEY = "domains";
const hostOf = (d: LegacyDomain) => new URL(d.domain).host;
const linksOf = (n: number) => (n === 1 ? "1 link" : `${n} links`);

/**
 * What deleting a domain does (docs/dashboard-manage.md "Deleting a domain"): its links are served
 * only on it, so they are deleted with it; say how many before the owner confirms.
 */
function DeleteDomainText({ domain }: { domain: LegacyDomain }) {
  if (domain.links === 0) return <p>No links use this domain. This cannot be undone.</p>;
  return (
    <>
      <p>
        <strong>Its {linksOf(domain.links)} will be deleted too</strong>: links on a branded domain are served
        only there, so their short URLs stop working, their click data is removed, and their codes stay
        reserved to you for a while.
      </p>
      <p>This cannot be undone.</p>
    </>
  );
}

function StatusPill({ domain }: { domain: LegacyDomain }) {
  const cls = domain.status === "verified" ? "ok" : domain.status === "failed" ? "bad" : "";
  return <span class={`pill ${cls}`}>{domain.status[0]!.toUpperCase() + domain.status.slice(1)}</span>;
}

function TxtRecord({ domain }: { domain: LegacyDomain }) {
  const r = domain.verification;
  return (
    <dl class="record">
      <dt>Type</dt>
      <dd>
        <code>{r.type}</code>
      </dd>
      <dt>Name</dt>
      <dd>
        <code>{r.name}</code> <CopyButton text={r.name} label="Copy name" />
      </dd>
      <dt>Value</dt>
      <dd>
        <code>{r.value}</code> <CopyButton text={r.value} label="Copy value" />
      </dd>
    </dl>
  );
}

function DomainForm({ domain, onDone }: { domain?: LegacyDomain; onDone: (added?: LegacyDomain) => void }) {
  const [url, setUrl] = useState("https://");
  const [root, setRoot] = useState(domain?.redirectroot ?? "");
  const [notFound, setNotFound] = useState(domain?.redirect404 ?? "");
  /** The added domain (its record to publish is shown next), or nothing after an edit. */
  const save = async (): Promise<LegacyDomain | undefined> => {
    if (domain) {
      await call(ROUTES.legacyUpdateDomain, {
        params: { id: String(domain.id) },
        body: { redirectroot: root.trim() || null, redirect404: notFound.trim() || null },
      });
      return undefined;
    }
    const added = await call(ROUTES.legacyAddDomain, {
      body: {
        domain: url.trim(),
        redirectroot: root.trim() || undefined,
        redirect404: notFound.trim() || undefined,
      },
    });
    return {
      ...added,
      domain: url.trim(),
      redirectroot: root.trim() || null,
      redirect404: notFound.trim() || null,
      links: 0,
    };
  };
  return (
    <ManageForm save={save} stale={KEY} label={domain ? "Save" : "Add domain"} onDone={onDone}>
      {!domain && (
        <TextField
          id="domain-url"
          label="Domain"
          hint="Scheme and host only, e.g. https://go.example.com"
          type="url"
          required
          value={url}
          onValue={setUrl}
        />
      )}
      <TextField
        id="domain-root"
        label="Root redirect (optional)"
        hint="Where the domain's own address sends visitors"
        type="url"
        value={root}
        onValue={setRoot}
      />
      <TextField
        id="domain-404"
        label="Not-found redirect (optional)"
        hint="Where unknown short codes send visitors"
        type="url"
        value={notFound}
        onValue={setNotFound}
      />
    </ManageForm>
  );
}

type DomainDialog =
  | { kind: "add" }
  | { kind: "added"; domain: LegacyDomain }
  | { kind: "edit"; domain: LegacyDomain }
  | { kind: "delete"; domain: LegacyDomain }
  | null;

export function DomainsPage() {
  const list = useFreshList(KEY);
  const [dialog, setDialog] = useState<DomainDialog>(null);
  const [notice, setNotice] = useState("");
  const [checking, setChecking] = useState<number | null>(null);
  const canWrite = useCan("domains:write");

  const verify = async (d: LegacyDomain) => {
    setChecking(d.id);
    setNotice("");
    try {
      const res = await call(ROUTES.legacyVerifyDomain, { params: { id: String(d.id) } });
      setNotice(`${hostOf(d)}: ${res.message}`);
    } catch (err) {
      setNotice(`${hostOf(d)}: ${messageOf(err)}`);
    } finally {
      setChecking(null);
      invalidate(KEY);
    }
  };

  return (
    <>
      <ManageHead
        title="Branded domains"
        action={canWrite ? "Add domain" : undefined}
        onAction={() => setDialog({ kind: "add" })}
      >
        Short links on your own domain. Point the domain at this service, publish the TXT record shown, then
        verify: only verified domains serve links.
      </ManageHead>
      <p class="notice-line" role="status" aria-live="polite">
        {notice}
      </p>
      <CardList
        query={list}
        loading="Loading domains"
        empty="No branded domains yet."
        card={(d) => (
          <DomainCard
            key={d.id}
            domain={d}
            checking={checking === d.id}
            canWrite={canWrite}
            onVerify={verify}
            onDialog={setDialog}
          />
        )}
      />
      <DomainDialogs
        dialog={dialog}
        onClose={() => setDialog(null)}
        onDialog={setDialog}
        onNotice={setNotice}
      />
    </>
  );
}

/** A domain with its status, the TXT record until it is verified, its redirects and its actions. */
function DomainCard({
  domain: d,
  checking,
  canWrite,
  onVerify,
  onDialog,
}: {
  domain: LegacyDomain;
  checking: boolean;
  /** The role may verify, edit and delete domains (domains:write); otherwise only the links show. */
  canWrite: boolean;
  onVerify: (domain: LegacyDomain) => void;
  onDialog: (dialog: DomainDialog) => void;
}) {
  return (
    <li class="card item" data-testid="domain-row">
      <div class="item-head">
        <h2 class="item-title">{hostOf(d)}</h2>
        <StatusPill domain={d} />
      </div>
      <p class="small muted">
        {d.domain} · {linksOf(d.links)} · last checked {fmtDate(d.last_checked_at)}
        {d.verified_at && ` · verified ${fmtDate(d.verified_at)}`}
      </p>
      {d.status !== "verified" && (
        <>
          <h3>DNS record to publish</h3>
          <TxtRecord domain={d} />
        </>
      )}
      <p class="small">
        Root redirect: {d.redirectroot ? <code>{d.redirectroot}</code> : "none"} · Not-found redirect:{" "}
        {d.redirect404 ? <code>{d.redirect404}</code> : "none"}
      </p>
      <div class="item-actions">
        {canWrite && (
          <>
            <button type="button" class="btn small" disabled={checking} onClick={() => onVerify(d)}>
              {checking ? "Checking…" : "Verify"}
              <span class="sr-only"> {hostOf(d)}</span>
            </button>
            <RowButton item={`of ${hostOf(d)}`} onClick={() => onDialog({ kind: "edit", domain: d })}>
              Edit redirects
            </RowButton>
          </>
        )}
        <Link class="btn small ghost" href={`/dashboard/links?domain=${encodeURIComponent(hostOf(d))}`}>
          Links<span class="sr-only"> on {hostOf(d)}</span>
        </Link>
        {canWrite && (
          <RowButton
            item={hostOf(d)}
            class="danger-ghost"
            onClick={() => onDialog({ kind: "delete", domain: d })}
          >
            Delete
          </RowButton>
        )}
      </div>
    </li>
  );
}

/** The open dialog: add, the record to publish after adding, edit the redirects, delete. */
function DomainDialogs({
  dialog,
  onClose,
  onDialog,
  onNotice,
}: {
  dialog: DomainDialog;
  onClose: () => void;
  onDialog: (dialog: DomainDialog) => void;
  onNotice: (notice: string) => void;
}) {
  return (
    <>
      {dialog?.kind === "add" && (
        <Dialog title="Add branded domain" onClose={onClose}>
          <DomainForm onDone={(added) => onDialog(added ? { kind: "added", domain: added } : null)} />
        </Dialog>
      )}
      {dialog?.kind === "added" && (
        <Dialog title={`Verify ${hostOf(dialog.domain)}`} onClose={onClose}>
          <p>Publish this DNS record at your DNS provider, then press Verify on the domain.</p>
          <TxtRecord domain={dialog.domain} />
          <DialogDone onDone={onClose} />
        </Dialog>
      )}
      {dialog?.kind === "edit" && (
        <Dialog title={`Redirects of ${hostOf(dialog.domain)}`} onClose={onClose}>
          <DomainForm domain={dialog.domain} onDone={onClose} />
        </Dialog>
      )}
      {dialog?.kind === "delete" && (
        <ConfirmDelete
          title={`Delete ${hostOf(dialog.domain)}?`}
          confirmLabel="Delete domain"
          onClose={onClose}
          remove={async () => {
            const host = hostOf(dialog.domain);
            const res = await call(ROUTES.legacyDeleteDomain, { params: { id: String(dialog.domain.id) } });
            onNotice(
              res.links_deleted === 0
                ? `Deleted ${host}.`
                : `Deleted ${host} and its ${linksOf(res.links_deleted)}.`,
            );
          }}
          invalidates={[KEY, "links", "summary"]}
        >
          <DeleteDomainText domain={dialog.domain} />
        </ConfirmDelete>
      )}
    </>
  );
}
