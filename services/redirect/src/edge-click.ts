// The click id and time of a request that came through the edge (decision 0049). The edge
// (infra/edge/nginx.conf) sends INTERNAL_HEADERS.edgeRequest, `<$request_id> <$msec>`, on every request
// it proxies, and a retry of the request on another redirect instance carries the same bytes. A
// redirect killed with SIGKILL has journaled the clicks of the requests it had not answered yet, and
// replays them when it restarts; the instance that answers the retry counts the same click. Deriving
// both the id and the time from the edge's value gives the two copies one click id, and analytics
// keeps one (decision 0049); the same time keeps them in one day of the `clicks` table's
// key.
//
// Only a trusted edge may choose them (TRUST_PROXY, the trust that already decides whether
// X-Forwarded-For is believed): the edge replaces any value a client sent. A value that is malformed,
// or whose time is further than EDGE_CLOCK_SKEW_MS from this process's clock, is ignored and the click
// gets an id of its own, as without an edge.
import { clickIdOf } from "./click-id.ts";

/**
 * How far the edge's time may be from ours. A retry reaches the second instance at most nginx's
 * proxy_connect_timeout + proxy_read_timeout (62 s) after the first attempt; the rest is clock skew.
 */
export const EDGE_CLOCK_SKEW_MS = 5 * 60_000;

/** `$request_id` (32 hex digits), a space, `$msec` (10 digits, a dot, 3 digits): 47 characters. */
const EDGE_VALUE = /^[0-9a-f]{32} \d{10}\.\d{3}$/;

export interface EdgeClick {
  clickId: string;
  /** The edge's time of the request, Unix milliseconds: the click's `ts`. */
  ms: number;
}

export function edgeClick(value: string | undefined, now: number): EdgeClick | null {
  if (value === undefined || value.length !== 47 || !EDGE_VALUE.test(value)) return null;
  const ms = Number(value.slice(33, 43)) * 1000 + Number(value.slice(44, 47));
  if (Math.abs(ms - now) > EDGE_CLOCK_SKEW_MS) return null;
  return { clickId: clickIdOf(ms, value), ms };
}
