// The account's signed-in sessions (GET /auth/sessions) and "Sign out everywhere", on the account
// page: someone who suspects a browser they left signed in, or a stolen cookie, ends them all here.
// Sessions are told apart by when they signed in and were last used (nothing about the device is kept).
import { V1_ROUTES } from "@kurz/contracts";
import { useState } from "preact/hooks";
import { useLocation } from "wouter-preact";
import { useQuery } from "../api/cache.ts";
import { call, messageOf } from "../api/client.ts";
import { signOutEverywhere } from "../api/session.ts";
import { FormStatus } from "../components/FormStatus.tsx";
import { TableCard } from "../components/TableCard.tsx";
import { fmtDate } from "./common.tsx";

export function SessionsCard() {
  const sessions = useQuery("sessions", () => call(V1_ROUTES.listSessions).then((r) => r.data.sessions));
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [, navigate] = useLocation();
  const endAll = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await signOutEverywhere();
    } catch (err) {
      setBusy(false);
      setError(`Could not sign out everywhere: ${messageOf(err)}`);
      return;
    }
    // This browser is signed out too: to sign-in, as the header's "Sign out" does.
    navigate("/login", { replace: true });
  };
  const list = sessions.data ?? [];
  return (
    <section aria-labelledby="sessions-title">
      <div class="section-head">
        <h2 id="sessions-title">Signed-in sessions</h2>
        <button type="button" class="btn danger" disabled={busy} onClick={endAll}>
          Sign out everywhere
        </button>
      </div>
      <p class="muted">
        Every browser signed in to your account. Signing out everywhere ends them all, this one included.
      </p>
      <FormStatus error={error} />
      <TableCard
        query={sessions}
        isEmpty={list.length === 0}
        loading="Loading sessions"
        empty="No sessions."
        caption="Your signed-in sessions"
        columns={["Signed in", "Last used", ["Ends", "col-hide"]]}
      >
        <tbody>
          {list.map((s) => (
            <tr key={s.id} data-testid="session-row">
              <td>
                {fmtDate(s.created_at)} {s.current && <span class="pill ok">This browser</span>}
              </td>
              <td>{fmtDate(s.last_used_at)}</td>
              <td class="col-hide">{fmtDate(s.expires_at)}</td>
            </tr>
          ))}
        </tbody>
      </TableCard>
    </section>
  );
}
