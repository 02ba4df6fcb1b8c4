// A sign-in in flight: what the callback must check (state, nonce, PKCE verifier) and which provider
// it went to, kept in Redis under the SHA-256 of a random handle that only the browser's flow cookie
// holds. Taking a flow deletes it (GETDEL), so each is used at most once, and it expires on its own.
import { SSO_FLOW_MINUTES } from "@kurz/contracts";
import type { Redis } from "ioredis";
import { hashToken, newToken } from "../security/tokens.ts";

export interface Flow {
  /** The workspace whose provider was used; null: the server's own. */
  workspaceId: string | null;
  state: string;
  nonce: string;
  verifier: string;
}

const key = (handle: string) => `sso-flow:${hashToken(handle)}`;

/** Stores the flow; the handle goes into the browser's cookie. */
export async function saveFlow(redis: Redis, flow: Flow): Promise<string> {
  const handle = newToken();
  await redis.set(key(handle), JSON.stringify(flow), "EX", SSO_FLOW_MINUTES * 60);
  return handle;
}

/** The flow of this handle, removed as it is read; null when unknown, expired or already taken. */
export async function takeFlow(redis: Redis, handle: string): Promise<Flow | null> {
  const stored = await redis.getdel(key(handle));
  return stored === null ? null : (JSON.parse(stored) as Flow);
}
