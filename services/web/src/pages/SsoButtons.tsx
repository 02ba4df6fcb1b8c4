// The sign-in page's single sign-on: a button for each provider the server offers (its own, and a
// workspace's when the page was opened from the link its owners share, `/login?sso=<workspace id>`),
// and what went wrong when a provider sent the browser back with `#sso_error=<code>`. The buttons are
// plain links: the sign-in is a round trip of top-level navigations, which no script takes part in.
import { SSO_ROUTES, type SsoError, type SsoProviders } from "@kurz/contracts";
import { useEffect, useState } from "preact/hooks";
import { useSearch } from "wouter-preact";
import { call } from "../api/client.ts";

const EXPLAINED: Record<SsoError, string> = {
  not_configured: "Single sign-on is not set up here any more. Sign in with your password, or ask an owner.",
  flow_invalid:
    "That sign-in could not be finished: it expired, was used already, or began in another browser. Try again.",
  provider_error:
    "The sign-in provider could not complete the sign-in. Try again, or ask your administrator.",
  email_unverified: "Your provider did not confirm that your e-mail address is verified.",
  domain_not_allowed:
    "Addresses at your e-mail's domain may not join this workspace through single sign-on. Ask an owner for an invitation.",
  no_workspace: "You belong to no workspace yet. Ask an owner for an invitation.",
};

const errorOf = (hash: string): string | null => {
  const code = new URLSearchParams(hash.slice(1)).get("sso_error");
  return code !== null && code in EXPLAINED ? EXPLAINED[code as SsoError] : null;
};

export function SsoButtons() {
  const workspace = new URLSearchParams(useSearch()).get("sso");
  const valid = workspace !== null && /^[0-9a-f-]{36}$/i.test(workspace) ? workspace : null;
  // Not the workspace cache (api/cache.ts): that belongs to a session, and is emptied when the first
  // session check finds none, which may be while this answer is on its way.
  const [list, setList] = useState<SsoProviders["providers"]>([]);
  useEffect(() => {
    let current = true;
    call(SSO_ROUTES.listSsoProviders, { query: valid ? { workspace: valid } : {} }).then(
      (r) => current && setList(r.data.providers),
      () => current && setList([]),
    );
    return () => {
      current = false;
    };
  }, [valid]);
  const error = errorOf(location.hash);
  if (list.length === 0 && error === null) return null;
  return (
    <div class="sso">
      {error !== null && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {list.length > 0 && <p class="sso-or">or</p>}
      {list.map((p) => (
        <a key={p.start_url} class="btn block" href={p.start_url}>
          Sign in with {p.name}
        </a>
      ))}
    </div>
  );
}
