import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { Redirect, Route, Switch } from "wouter-preact";
import { checkSession, useSession } from "./api/session.ts";
import { labelTableCells } from "./components/cellLabels.ts";
import { lazyPage } from "./components/lazyPage.tsx";
import { Shell } from "./components/Shell.tsx";
import { AccountPage } from "./pages/AccountPage.tsx";
import { AuthPage } from "./pages/AuthPage.tsx";
import { DataRoutes } from "./pages/data/routes.tsx";
import { invitationToken, JoinPage } from "./pages/JoinPage.tsx";
import { KeysPage } from "./pages/KeysPage.tsx";
import { LinkPage } from "./pages/LinkPage.tsx";
import { LinksPage } from "./pages/LinksPage.tsx";
import { CampaignsPage, ChannelsPage, DomainsPage, OverlaysPage } from "./pages/manage/lazy.tsx";
import { NotFoundPage } from "./pages/NotFoundPage.tsx";
import { OverviewPage } from "./pages/OverviewPage.tsx";
import { PublicStatsPage } from "./pages/PublicStatsPage.tsx";
import { ConfirmEmailPage, ForgotPasswordPage, ResetPasswordPage, recoveryOf } from "./pages/RecoverPage.tsx";
import { SsoPage } from "./pages/SsoPage.tsx";
import { WorkspacePage } from "./pages/WorkspacePage.tsx";
import "./styles.css";

const MembersPage = lazyPage(() => import("./pages/members/MembersPage.tsx").then((m) => m.MembersPage));
const SecurityPage = lazyPage(() => import("./pages/SecurityPage.tsx").then((m) => m.SecurityPage));

const AuditLogPage = lazyPage(() => import("./pages/members/AuditLogPage.tsx").then((m) => m.AuditLogPage));

/**
 * Dashboard pages: signed-out visitors go to sign-in and come back afterwards. While the first session
 * check runs, the page is already drawn and fetching: its reads need only the cookie, so its data and
 * the check travel together rather than one after the other (a round trip less before a page is
 * usable; `./kurz bench web`). A signed-out visitor's reads answer 401 and the check sends them on.
 */
function Dashboard() {
  const session = useSession();
  if (session === null) {
    const next = encodeURIComponent(location.pathname + location.search);
    return <Redirect to={`/login?next=${next}`} replace />;
  }
  return (
    <Shell session={session}>
      <Switch>
        <Route path="/dashboard" component={OverviewPage} />
        <Route path="/dashboard/links" component={LinksPage} />
        <Route path="/dashboard/links/:id">{(p: { id: string }) => <LinkPage id={p.id} />}</Route>
        <Route path="/dashboard/keys" component={KeysPage} />
        <Route path="/dashboard/account" component={AccountPage} />
        <Route path="/dashboard/security">{() => <SecurityPage />}</Route>
        <Route path="/dashboard/workspace" component={WorkspacePage} />
        <Route path="/dashboard/members">{() => <MembersPage />}</Route>
        <Route path="/dashboard/sso" component={SsoPage} />

        <Route path="/dashboard/audit-log">{() => <AuditLogPage />}</Route>
        {DataRoutes}
        <Route path="/dashboard/domains" component={DomainsPage} />
        <Route path="/dashboard/campaigns" component={CampaignsPage} />
        <Route path="/dashboard/channels" component={ChannelsPage} />
        <Route path="/dashboard/overlays" component={OverlaysPage} />
        <Route>{() => <NotFoundPage standalone={false} />}</Route>
      </Switch>
    </Shell>
  );
}

function Home() {
  const session = useSession();
  if (session === undefined) return <p class="boot">Loading…</p>;
  return <Redirect to={session ? "/dashboard" : "/login"} replace />;
}

/** /login, or what its fragment asks for: a reset link, a new address to confirm, a forgotten password. */
function LoginRoute() {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const follow = () => setHash(location.hash);
    addEventListener("hashchange", follow);
    return () => removeEventListener("hashchange", follow);
  }, []);
  const recovery = recoveryOf(hash);
  if (recovery === null) return <AuthPage mode="login" />;
  if ("reset" in recovery) return <ResetPasswordPage token={recovery.reset} />;
  if ("email" in recovery) return <ConfirmEmailPage token={recovery.email} />;
  return <ForgotPasswordPage />;
}

function App() {
  return (
    <Switch>
      <Route path="/" component={Home} />
      <Route path="/login" component={LoginRoute} />
      <Route path="/signup">
        {() => {
          const token = invitationToken();
          return token ? <JoinPage token={token} /> : <AuthPage mode="signup" />;
        }}
      </Route>
      <Route path="/stats/:code">{(p: { code: string }) => <PublicStatsPage code={p.code} />}</Route>
      <Route path="/dashboard/*?" component={Dashboard} />
      <Route>{() => <NotFoundPage />}</Route>
    </Switch>
  );
}

// Public stats need no session; every other page waits for the first check.
if (!location.pathname.startsWith("/stats/")) void checkSession();
render(<App />, document.getElementById("app")!);
labelTableCells();
