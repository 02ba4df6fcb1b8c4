// Who is signed in. The session itself is an HttpOnly cookie the page cannot read; what the page
// keeps is the Session answer (e-mail, expiry, CSRF token) from sign-in, sign-up or GET /auth/session.
import { type Session, V1_ROUTES } from "@kurz/contracts";
import { useEffect, useState } from "preact/hooks";
import { clearCache } from "./cache.ts";
import { ApiFailure, call, setCsrfToken, setUnauthorizedHandler } from "./client.ts";

/** undefined while the first check runs; null when signed out. */
let current: Session | null | undefined;
const listeners = new Set<(s: Session | null | undefined) => void>();

export function setSession(session: Session | null): void {
  if (session === null) clearCache();
  current = session;
  setCsrfToken(session?.csrf_token ?? null);
  for (const l of listeners) l(session);
}

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
    if (err instanceof ApiFailure && err.status === 401) setSession(null);
    else setSession(null);
  }
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
