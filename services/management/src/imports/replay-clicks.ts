// Replays the clicks an nginx serving the continuity snapshot logged (docs/continuity.md) into
// analytics: each logged redirect becomes the ClickEvent the redirect would have published, on the
// same bus topic, so analytics enriches it (location, device, bot flag) and stores it as any click.
// A click's id is derived from the log's request id (nginx's $request_id, 128 random bits) and the
// workspace, and its time from the log: the same line replayed again is the same click, which
// analytics' exactly-once ingest keeps once (decision 0049). Invariants: only the named workspace's
// links get clicks (a line naming another workspace's code is skipped), a bad line is counted and
// skipped, never fatal, and the visitor's address goes only into the event, as the redirect's does.
// A link with a click limit (max_clicks) has its counter advanced by the replayed clicks the redirect
// would have counted (not bots), each click id once (replayed-click-limits.ts).
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import type { EventBus } from "@kurz/bus";
import { CLICK_FIELD_MAX, type ClickEvent, CODE_PATTERN, clickMessages, TOPICS } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { isbot } from "isbot";
import type { LimitedClick, ReplayedClickLimits } from "./replayed-click-limits.ts";

/** A longer line is no line nginx's snapshot format writes (its fields are capped well below). */
export const LOG_LINE_MAX = 16 * 1024;
/** Clicks published per bus round trip. */
const FLUSH_AT = 1_000;
/** A logged time this far past the replay's clock is no real visit. */
const FUTURE_SKEW_MS = 24 * 60 * 60_000;
/** Nor is one before 2000: no snapshot was served then, and analytics' day partitions start at 1970. */
const EARLIEST_MS = Date.UTC(2000, 0, 1);

export interface ReplayReport {
  /** Lines read, blank ones left out. */
  lines: number;
  /** Clicks published (analytics drops those an earlier replay already stored). */
  replayed: number;
  /** Lines that are not a snapshot log line: not JSON, a field missing or malformed, too long. */
  bad: number;
  /** Requests that were not a click: not a redirect (404, 410, 503), or not a GET. */
  notClicks: number;
  /** Redirects of codes that are not a link of this workspace (another's, or deleted since). */
  unknown: number;
  /** Lines whose request id came earlier in the same log. */
  duplicates: number;
  /** Clicks that advanced their link's click limit (a click an earlier replay counted advances nothing). */
  limitCounted: number;
  /** Clicks of links with a click limit whose counter could not be advanced (Redis unreachable). */
  limitNotCounted: number;
}

export interface ReplayDeps {
  prisma: PrismaClient;
  bus: EventBus;
  /** Where links' click-limit counters are advanced; null when Redis is unreachable. */
  limits: ReplayedClickLimits | null;
  /** The replay's clock, for the sanity bound on logged times. */
  now?: () => number;
}

/** One line of `log_format kurz_snapshot`, as far as the replay reads it. */
interface LogLine {
  requestId: string;
  ms: number;
  method: string | null;
  host: string;
  code: string | null;
  status: number;
  referer: string | null;
  userAgent: string | null;
  ip: string | null;
}

const text = (v: unknown): string | null => (typeof v === "string" ? v : null);
const field = (v: string | null, max: number) => (v === null || v === "" ? null : v.slice(0, max));

/** The line's fields, or null when it is not a line of the snapshot's log format. */
export function parseLogLine(line: string): LogLine | null {
  let o: unknown;
  try {
    o = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof o !== "object" || o === null || Array.isArray(o)) return null;
  const r = o as Record<string, unknown>;
  const requestId = text(r.request_id);
  const uri = text(r.uri);
  const status = Number(text(r.status));
  if (requestId === null || !/^[0-9a-f]{32}$/.test(requestId)) return null;
  if (uri === null || !uri.startsWith("/") || !Number.isInteger(status)) return null;
  // $msec (seconds.millis) when the log has it; $time_iso8601 (whole seconds) otherwise.
  const msec = text(r.msec);
  const ms =
    msec !== null && /^\d{1,12}\.\d{3}$/.test(msec)
      ? Math.round(Number(msec) * 1000)
      : Date.parse(text(r.time) ?? "");
  if (!Number.isFinite(ms) || ms <= 0) return null;
  let path = uri.split("?")[0]!;
  try {
    // nginx matched the decoded path ($uri); the log holds it as sent ($request_uri).
    path = decodeURIComponent(path);
  } catch {
    return null;
  }
  const code = path.slice(1);
  return {
    requestId,
    ms,
    method: text(r.method),
    host: text(r.host) ?? "",
    code: CODE_PATTERN.test(code) ? code : null,
    status,
    referer: text(r.referer),
    userAgent: text(r.user_agent),
    ip: text(r.remote_addr),
  };
}

/**
 * The click id: a version 7 UUID (ClickEvent's contract) with the request's time in milliseconds and
 * 74 bits of SHA-256(workspace, request id) after it. The same line always gives the same id; two
 * workspaces' logs with the same request id give different ones.
 */
export function replayClickId(accountId: string, requestId: string, ms: number): string {
  const hex = createHash("sha256").update(`kurz-snapshot:${accountId}:${requestId}`).digest("hex");
  const time = ms.toString(16).padStart(12, "0");
  const variant = "89ab"[Number.parseInt(hex[3]!, 16) & 3];
  return `${time.slice(0, 8)}-${time.slice(8)}-7${hex.slice(0, 3)}-${variant}${hex.slice(4, 7)}-${hex.slice(7, 19)}`;
}

/** The file's lines; a line longer than LOG_LINE_MAX is given as null, without holding it in memory. */
export async function* logLines(file: string): AsyncGenerator<string | null> {
  let line = "";
  let tooLong = false;
  for await (const chunk of createReadStream(file, { encoding: "utf8", highWaterMark: 64 * 1024 })) {
    let from = 0;
    for (;;) {
      const nl = (chunk as string).indexOf("\n", from);
      const piece = (chunk as string).slice(from, nl === -1 ? undefined : nl);
      if (!tooLong) {
        line += piece;
        if (line.length > LOG_LINE_MAX) {
          tooLong = true;
          line = "";
        }
      }
      if (nl === -1) break;
      yield tooLong ? null : line;
      line = "";
      tooLong = false;
      from = nl + 1;
    }
  }
  if (tooLong) yield null;
  else if (line !== "") yield line;
}

interface LinkFacts {
  id: string;
  /** The branded domain that alone serves it, or null (served on every host). */
  host: string | null;
  /** Whether it has a click limit (max_clicks). */
  limited: boolean;
}

/** Replays `file` into analytics as `accountId`'s clicks; returns what it did with each line. */
export async function replayClicks(
  deps: ReplayDeps,
  opts: { accountId: string; file: string },
): Promise<ReplayReport> {
  const now = deps.now ?? Date.now;
  const report: ReplayReport = {
    lines: 0,
    replayed: 0,
    bad: 0,
    notClicks: 0,
    unknown: 0,
    duplicates: 0,
    limitCounted: 0,
    limitNotCounted: 0,
  };
  const links = new Map<string, LinkFacts | null>();
  const seen = new Set<string>();
  let pending: ClickEvent[] = [];
  let limited: LimitedClick[] = [];
  // The clicks first: a counter advanced for a click analytics never got would refuse a visit too soon.
  const flush = async () => {
    if (pending.length === 0) return;
    await deps.bus.publish(TOPICS.clicks, clickMessages(pending, deps.bus.partitionsByKey));
    report.replayed += pending.length;
    pending = [];
    if (limited.length === 0) return;
    if (deps.limits) report.limitCounted += await deps.limits.advance(limited);
    else report.limitNotCounted += limited.length;
    limited = [];
  };
  for await (const raw of logLines(opts.file)) {
    if (raw !== null && raw.trim() === "") continue;
    report.lines++;
    const line = raw === null ? null : parseLogLine(raw);
    if (line === null || line.ms < EARLIEST_MS || line.ms > now() + FUTURE_SKEW_MS) {
      report.bad++;
      continue;
    }
    // The redirect counts a GET that it redirects; a HEAD only answers, other methods get 405 there.
    // Older logs have no method.
    const isClick =
      line.status >= 300 && line.status < 400 && (line.method === null || line.method === "GET");
    if (!isClick || line.code === null) {
      report.notClicks++;
      continue;
    }
    let link = links.get(line.code);
    if (link === undefined) {
      link = await linkOf(deps.prisma, opts.accountId, line.code);
      links.set(line.code, link);
    }
    const hostName = line.host.toLowerCase().split(":")[0];
    if (link === null || (link.host !== null && link.host !== hostName)) {
      report.unknown++;
      continue;
    }
    if (seen.has(line.requestId)) {
      report.duplicates++;
      continue;
    }
    seen.add(line.requestId);
    const clickId = replayClickId(opts.accountId, line.requestId, line.ms);
    // The redirect counts a GET from anything but a bot against the limit (isbot, as it decides).
    if (link.limited && !isbot(line.userAgent ?? "")) limited.push({ linkId: link.id, clickId });
    pending.push({
      v: 1,
      click_id: clickId,
      link_id: link.id,
      account_id: opts.accountId,
      short_code: line.code,
      ts: new Date(line.ms).toISOString(),
      ip: line.ip !== null && line.ip !== "" && line.ip.length <= 64 ? line.ip : null,
      user_agent: field(line.userAgent, CLICK_FIELD_MAX.user_agent),
      referrer: field(line.referer, CLICK_FIELD_MAX.referrer),
      host: field(line.host, CLICK_FIELD_MAX.host),
    });
    if (pending.length >= FLUSH_AT) await flush();
  }
  await flush();
  return report;
}

/** The workspace's link with this code, and the domain that alone serves it; null when it has none. */
async function linkOf(prisma: PrismaClient, accountId: string, code: string): Promise<LinkFacts | null> {
  const link = await prisma.link.findFirst({
    where: { shortCode: code, accountId },
    select: { id: true, maxClicks: true, domain: { select: { host: true } } },
  });
  if (link === null) return null;
  return {
    id: link.id,
    host: link.domain ? link.domain.host.toLowerCase().split(":")[0]! : null,
    limited: link.maxClicks !== null,
  };
}
