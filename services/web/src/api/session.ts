// Who is signed in. The session itself is an HttpOnly cookie the page cannot read; what the page
// keeps is the Session answer (e-mail, expiry, CSRF token) from sign-in, sign-up or GET /auth/session.
// Its `account_id` and `role` are those of the workspace chosen in the switcher (client.ts keeps the
// choice): one the session lists, else the first.
import { ROLE_SCOPES, type Scope, type Session, V1_ROUTES } from "@kurz/contracts";
import { useEffect, useState } from "preact/hooks";
import { adoptDefault, clearCache } from "./cache.ts";
import {
  ApiFailure,
  call,
  currentWorkspace,
  setCsrfToken,
  setUnauthorizedHandler,
  setWorkspace,
} from "./client.ts";

/** undefined while the first check runs; null when signed out. */
let current: Session | null | undefined;
const listeners = new Set<(s: Session | null | undefined) => void>();

export function setSession(answer: Session | null): void {
  // Another person signing in here sees nothing of the one before.
  if (answer === null || (current && current.user_id !== answer.user_id)) {
    clearCache();
    redrawn++;
  }
  let session = answer;
  const first = answer?.workspaces[0];
  if (answer && first) {
    const before = currentWorkspace();
    // A stored choice the session does not list (removed since, another person) falls back to the first.
    const chosen = answer.workspaces.find((w) => w.id === before) ?? first;
    setWorkspace(chosen.id);
    if (before === null) adoptDefault(first.id);
    session = { ...answer, account_id: chosen.id, role: chosen.role };
  }
  current = session;
  setCsrfToken(session?.csrf_token ?? null);
  for (const l of listeners) l(session);
}

/** Changes when the pages must be drawn afresh (another workspace, another person): the shell's key. */
let redrawn = 0;
export const drawing = (): number => redrawn;

export function useSession(): Session | null | undefined {
  const [session, set] = useState(current);
  useEffect(() => {
    listeners.add(set);
    set(current);
    return () => {
      listeners.delete(set);
    };
  }, []);
  return session;
}

export async function checkSession(): Promise<void> {
  try {
    const { data } = await call(V1_ROUTES.getSession);
    setSession(data);
  } catch (err) {
    // A stored workspace the user is no longer in (removed, or another person signed in here): 404.
    if (err instanceof ApiFailure && err.status === 404 && currentWorkspace() !== null) {
      setWorkspace(null);
      return checkSession();
    }
    setSession(null);
  }
}

/**
 * Acts in workspace `id` (null: the user's first) from now on; the pages under the shell are drawn
 * afresh for it. The session is read again unless it already lists `id` (a new one, one just left).
 */
export async function switchWorkspace(id: string | null): Promise<void> {
  setWorkspace(id);
  redrawn++;
  if (current && id !== null && current.workspaces.some((w) => w.id === id)) setSession(current);
  else await checkSession();
}

export async function signOut(): Promise<void> {
  try {
    await call(V1_ROUTES.logout);
  } finally {
    setSession(null);
  }
}

/**
 * Ends every session of the account, this browser's included. Unlike signOut, a failure keeps this
 * session (and throws): the person must learn that the others may still be signed in.
 */
export async function signOutEverywhere(): Promise<void> {
  await call(V1_ROUTES.endAllSessions);
  setSession(null);
}

setUnauthorizedHandler(() => {
  if (current) setSession(null);
});

/**
 * Whether requests without X-Workspace-Id (a link, an image) act in the chosen workspace: the server
 * answers those from the person's first.
 */
export function useInFirstWorkspace(): boolean {
  const session = useSession();
  return !session || session.workspaces[0]?.id === currentWorkspace();
}

/**
 * Whether the signed-in person's role in the chosen workspace grants `scope`: pages offer only what
 * the server would allow (it refuses the rest with 403 whatever the page shows).
 */
export function useCan(scope: Scope): boolean {
  const session = useSession();
  return session ? ROLE_SCOPES[session.role].includes(scope) : false;
}
