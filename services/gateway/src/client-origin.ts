// Where a request comes from, as coarsely as the audit log needs it (docs/workspaces.md, "Audit log"):
// the network prefix of the client's address (/24 for IPv4, /48 for IPv6) and the family of its user
// agent ("Chrome on macOS", "curl"). Management records both with each change; the full address never
// leaves the gateway.

import type { IncomingMessage } from "node:http";
import { isIPv4, isIPv6 } from "node:net";
import { LRUCache } from "lru-cache";
import UAParser from "ua-parser-js";
import type { ClientAddress } from "./client-hash.ts";

/** Distinct user agents whose family is kept in memory; real traffic repeats a small set. */
const AGENTS_MAX = 5_000;
/** A user agent longer than this is not parsed (ua-parser's regexes run over the whole string). */
const AGENT_PARSE_MAX = 512;

export interface ClientOrigin {
  ipPrefix: string | null;
  agent: string | null;
}

/** The client's prefix and user-agent family, from the same address the budgets use. */
export function createClientOrigin(address: ClientAddress): (req: IncomingMessage) => ClientOrigin {
  const families = new LRUCache<string, string>({ max: AGENTS_MAX });
  const familyOf = (ua: string | undefined): string | null => {
    if (!ua) return null;
    let family = families.get(ua);
    if (family === undefined) {
      family = agentFamily(ua);
      families.set(ua, family);
    }
    return family === "" ? null : family;
  };
  return (req) => ({ ipPrefix: ipPrefix(address(req)), agent: familyOf(req.headers["user-agent"]) });
}

/** `a.b.c.0/24` for IPv4 (an IPv4-mapped IPv6 address counts as IPv4), `x:y:z::/48` for IPv6. */
export function ipPrefix(address: string): string | null {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const v4 = mapped ? mapped[1]! : address;
  if (isIPv4(v4)) return `${v4.split(".").slice(0, 3).join(".")}.0/24`;
  if (!isIPv6(address)) return null;
  const groups = expandIPv6(address.split("%")[0]!);
  return `${groups
    .slice(0, 3)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(":")}::/48`;
}

/** The eight groups of an IPv6 address (an embedded IPv4 tail becomes two groups). */
function expandIPv6(address: string): string[] {
  let text = address;
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail[1]!.split(".").map(Number) as [number, number, number, number];
    text = `${text.slice(0, -tail[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split("::") as [string, string | undefined];
  const left = head === "" ? [] : head.split(":");
  if (rest === undefined) return left;
  const right = rest === "" ? [] : rest.split(":");
  return [...left, ...new Array<string>(8 - left.length - right.length).fill("0"), ...right];
}

const OS_NAMES: Record<string, string> = { "Mac OS": "macOS", "Chromium OS": "ChromeOS" };
/** A product token ("curl/8.4.0" → "curl"): what tools send, and ua-parser 1.x does not name. */
const PRODUCT = /^([A-Za-z][A-Za-z0-9._-]{0,31})(?:\/|\s|$)/;

/** "Chrome on macOS", "Firefox", "curl"; "" when nothing is recognised. No versions: a family only. */
export function agentFamily(ua: string): string {
  if (ua.length <= AGENT_PARSE_MAX) {
    const { browser, os } = new UAParser(ua).getResult();
    if (browser.name) {
      const system = os.name ? (OS_NAMES[os.name] ?? os.name) : undefined;
      return system ? `${browser.name} on ${system}` : browser.name;
    }
  }
  const product = PRODUCT.exec(ua)?.[1];
  return product && product !== "Mozilla" ? product : "";
}
