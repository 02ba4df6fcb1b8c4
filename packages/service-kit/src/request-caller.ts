// The caller of the route being answered, for code far below the handler that must say who acted
// (management's audit log) without every use case taking it as a parameter. The route pipeline sets
// it around each handler; work that outlives the request or gathers several requests' work (a batch
// of creates) must read it when the request hands the work over, not later.
import { AsyncLocalStorage } from "node:async_hooks";
import type { Identity } from "./internal-auth.ts";

const storage = new AsyncLocalStorage<Identity>();
const NOBODY: Identity = Object.freeze({ accountId: null, keyId: null });
/**
 * Off until a service asks for it: before Node 24 an AsyncLocalStorage in use makes every promise of
 * the process carry the context (async hooks), which a service that never reads it should not pay.
 */
let tracking = false;

/** Makes the route pipeline keep each request's caller for requestCaller (management's audit log). */
export function trackRequestCallers(): void {
  tracking = true;
}

/** Runs `fn` with `identity` as the request's caller (none: an anonymous or internal call). */
export function withRequestCaller<T>(identity: Identity | undefined, fn: () => T): T {
  return tracking ? storage.run(identity ?? NOBODY, fn) : fn();
}

/** The caller of the route being answered; undefined outside any route (a CLI, a worker). */
export function requestCaller(): Identity | undefined {
  return storage.getStore();
}
