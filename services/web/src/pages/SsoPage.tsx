// Single sign-on for the chosen workspace (owners only; docs/workspaces.md, "Single sign-on"): its
// OpenID Connect provider, the e-mail domains whose people join on their first sign-in and the role
// they get. Saving asks DNS for each domain's proof record: when one is missing the server names the
// records to publish, and this page shows them. The client secret is never shown again once saved.
import { SSO_ROUTES as S, SSO_DOMAINS_MAX, type SsoConfig } from "@kurz/contracts";
import { useEffect, useState } from "preact/hooks";
import { invalidate, useQuery } from "../api/cache.ts";
import { ApiFailure, call, fieldError } from "../api/client.ts";
import { useSession } from "../api/session.ts";
import { ConfirmDelete } from "../components/ConfirmDelete.tsx";
import { CopyButton } from "../components/CopyButton.tsx";
import { SelectField, TextField } from "../components/FormField.tsx";
import { useSubmit } from "../components/useSubmit.ts";
import { Failed, Loading, Notice, PageHead } from "./common.tsx";

type Role = SsoConfig["default_role"];
interface ProofRecord {
  domain: string;
  name: string;
  value: string;
}

const ROLES: { value: Role; label: string }[] = [
  { value: "member", label: "member" },
  { value: "viewer", label: "viewer" },
];

const domainsOf = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((d) => d.trim().toLowerCase())
    .filter(Boolean);

export function SsoPage() {
  const session = useSession();
  if (!session) return null;
  if (session.role !== "owner") {
    return (
      <>
        <PageHead title="Single sign-on" />
        <p>Only the workspace's owners set up single sign-on.</p>
      </>
    );
  }
  return <SsoSettings id={session.account_id} />;
}

function SsoSettings({ id }: { id: string }) {
  const config = useQuery("sso-config", () =>
    call(S.getSsoConfig, { params: { id } }).then(
      (r) => r.data,
      (err: unknown) => {
        if (err instanceof ApiFailure && err.code === "NOT_FOUND") return null;
        throw err;
      },
    ),
  );
  const [removing, setRemoving] = useState(false);
  const [notice, setNotice] = useState("");
  if (config.error) return <Failed error={config.error} />;
  if (config.data === undefined) return <Loading />;
  const saved = config.data;
  return (
    <>
      <PageHead title="Single sign-on">
        {saved && (
          <button type="button" class="btn danger-ghost" onClick={() => setRemoving(true)}>
            Remove
          </button>
        )}
      </PageHead>
      <Notice text={notice} />
      <p class="muted">
        People sign in through your organisation's OpenID Connect provider. Whoever has a verified address at
        one of your domains joins this workspace on their first sign-in.
      </p>
      {saved && <Saved config={saved} />}
      <SsoForm id={id} saved={saved} onSaved={() => setNotice("Single sign-on is saved.")} />
      {removing && (
        <ConfirmDelete
          title="Remove single sign-on?"
          confirmLabel="Remove"
          remove={() => call(S.deleteSsoConfig, { params: { id } })}
          invalidates={["sso-config"]}
          onClose={() => setRemoving(false)}
        >
          <p>Members stay; they sign in with a password or the server's own provider from now on.</p>
        </ConfirmDelete>
      )}
    </>
  );
}

function Saved({ config }: { config: SsoConfig }) {
  return (
    <section class="card" aria-label="How people sign in">
      <h2 class="card-title">How people sign in</h2>
      <dl class="facts">
        <dt>Sign-in link</dt>
        <dd>
          <code data-testid="sso-sign-in-url">{config.sign_in_url}</code>{" "}
          <CopyButton text={config.sign_in_url} label="Copy sign-in link" />
        </dd>
        <dt>Redirect URI</dt>
        <dd>
          <code>{config.redirect_uri}</code> (register it at your provider)
        </dd>
        <dt>Domains</dt>
        <dd>{config.domains.join(", ")}</dd>
        <dt>New people join as</dt>
        <dd>{config.default_role}</dd>
      </dl>
    </section>
  );
}

function SsoForm({ id, saved, onSaved }: { id: string; saved: SsoConfig | null; onSaved: () => void }) {
  const [issuer, setIssuer] = useState(saved?.issuer ?? "");
  const [clientId, setClientId] = useState(saved?.client_id ?? "");
  const [secret, setSecret] = useState("");
  const [domains, setDomains] = useState(saved?.domains.join(", ") ?? "");
  const [role, setRole] = useState<Role>(saved?.default_role ?? "member");
  useEffect(() => setSecret(""), [saved]);
  const { busy, error, submit } = useSubmit(async () => {
    await call(S.putSsoConfig, {
      params: { id },
      body: {
        issuer,
        client_id: clientId,
        ...(secret ? { client_secret: secret } : {}),
        domains: domainsOf(domains),
        default_role: role,
      },
    });
    invalidate("sso-config");
    onSaved();
  });
  const records =
    error instanceof ApiFailure && Array.isArray(error.details?.records)
      ? (error.details.records as ProofRecord[])
      : (saved?.domain_records ?? []);
  return (
    <section class="card" aria-label="Provider">
      <h2 class="card-title">{saved ? "Change the provider" : "Set up a provider"}</h2>
      <form onSubmit={submit} noValidate aria-label="Single sign-on provider">
        {error !== null && !(error instanceof ApiFailure && error.code === "VALIDATION_ERROR") && (
          <Failed error={error} />
        )}
        <TextField
          id="sso-issuer"
          label="Issuer URL"
          type="url"
          value={issuer}
          onValue={setIssuer}
          placeholder="https://login.example.com"
          error={fieldError(error, "issuer")}
          required
        />
        <TextField
          id="sso-client-id"
          label="Client ID"
          value={clientId}
          onValue={setClientId}
          error={fieldError(error, "client_id")}
          required
        />
        <TextField
          id="sso-client-secret"
          label="Client secret"
          type="password"
          value={secret}
          onValue={setSecret}
          hint={saved ? "Leave empty to keep the saved secret." : "Kept encrypted; never shown again."}
          error={fieldError(error, "client_secret")}
        />
        <TextField
          id="sso-domains"
          label="E-mail domains"
          value={domains}
          onValue={setDomains}
          placeholder="example.com"
          hint={`Up to ${SSO_DOMAINS_MAX}, separated by commas. Each needs a DNS record (below).`}
          error={fieldError(error, "domains")}
          required
        />
        <SelectField
          id="sso-role"
          label="New people join as"
          value={role}
          options={ROLES}
          onValue={setRole}
        />
        <button type="submit" class="btn primary" disabled={busy}>
          {busy ? "Checking…" : "Save"}
        </button>
      </form>
      {records.length > 0 && (
        <div class="sso-records">
          <h3>DNS records that prove your domains</h3>
          <p>Publish each as a TXT record, then save.</p>
          <ul>
            {records.map((r) => (
              <li key={r.domain}>
                <code>{r.name}</code> TXT <code>{r.value}</code>
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
