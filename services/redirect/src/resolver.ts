// Resolves short codes, branded hosts and rotator slugs to their records: in-process LRU → Redis →
// management's internal resolve endpoint. Misses are cached too (negative caching) so a flood of
// unknown codes cannot reach management, and concurrent misses for one id share one request. A code's
// miss is also shared through Redis (`miss:<code>`, short TTL) so that every instance knows it, and a
// lookup about to reach management can be refused by the caller's gate (a client's miss budget).
//
// The redirect never writes these records to Redis itself: management's resolve endpoint heals Redis
// when it answers, and a write from here could put back a record management has just changed.
import {
  DomainRecord,
  domainKey,
  INTERNAL_HEADERS,
  INTERNAL_ROUTES,
  type InternalRouteDef,
  isRecordTombstone,
  OverlayRecord,
  overlayKey,
  type PathParams,
  RedirectRecord,
  RotatorRecord,
  redirectKey,
  redirectMissKey,
  rotatorKey,
  SmartRecord,
  toLocation,
} from "@kurz/contracts";
import { uniformSmartRecord } from "@kurz/link-rules";
import { createInternalClient, type InternalClient } from "@kurz/service-kit";
import type { Redis } from "ioredis";
import { LRUCache } from "lru-cache";
import { z } from "zod";

const MISSING = Symbol("missing");

/**
 * A link record whose smart part (`s`) does not parse (a management newer or older than this
 * redirect, a hand-edited key) still redirects, as a plain link to its own URL: refusing the record
 * would send every visit on to management, which answers the same record. `unreadable` hears of each
 * such load (one per cache fill, not per visit), so the operator learns the rules are not applied.
 */
const linkRecordSchema = (unreadable: (linkId: string) => void) =>
  RedirectRecord.extend({ s: z.unknown().optional() }).transform((r): RedirectRecord => {
    if (r.s === undefined) return r as RedirectRecord;
    const smart = SmartRecord.safeParse(r.s);
    if (smart.success) return { ...r, s: smart.data };
    unreadable(r.id);
    const { s: _unreadable, ...plain } = r;
    return plain;
  });

/** Neither Redis nor management could answer; the record may well exist, so this is not a 404. */
export class ResolverUnavailableError extends Error {
  constructor(what: string) {
    super(`could not resolve ${what}: Redis and management unavailable`);
  }
}

/** The caller's gate refused a lookup that would have reached management. */
export class LookupRefusedError extends Error {
  constructor(readonly retryAfter: number) {
    super("lookup refused: the client's miss budget is spent");
  }
}

/**
 * What a gate answers just before a lookup reaches management. When allowed, `settle` is told whether
 * management had no such record, so the gate can count misses only.
 */
export type GateAnswer =
  | { allowed: true; settle(missed: boolean): void }
  | { allowed: false; retryAfter: number };
export type ManagementGate = () => Promise<GateAnswer>;

export interface LookupOptions {
  redis: Redis;
  managementUrl: string;
  internalToken: string;
  maxEntries: number;
  ttlMs: number;
  /** How long a miss written to Redis (`miss:<code>`) lasts, for the kinds that share misses. */
  missTtlSeconds?: number;
  onError?: (err: unknown, where: "redis" | "management") => void;
  /** A link record's smart part did not parse; the link redirects as a plain one. */
  onUnreadableSmart?: (linkId: string) => void;
}

interface Kind<T> {
  name: string;
  schema: z.ZodType<T>;
  redisKey: (id: string) => string;
  /** The shared negative entry's key, for kinds whose misses are shared through Redis. */
  missKey?: (id: string) => string;
  /** Management's answer for `id`: its internal resolve route (contracts' INTERNAL_ROUTES). */
  fromManagement: (id: string) => Promise<Response>;
  /** The form kept in the cache, when it can be smaller than the parsed one. */
  compact?: (record: T) => T;
}

/** A branded domain's targets in their Location form (see linkCompactor). */
const domainLocations = (d: DomainRecord): DomainRecord => ({
  ...d,
  redirect_root: d.redirect_root === null ? null : toLocation(d.redirect_root),
  redirect_404: d.redirect_404 === null ? null : toLocation(d.redirect_404),
});

// Branded domains and campaign slugs are few next to short codes; their caches need not be as large.
const SMALL_CACHE_MAX = 10_000;

/**
 * A cached link as a literal of fixed shape (in-object members, no separate property store), with
 * one shared string per account id: most cached links share a few accounts. Together about a third
 * less memory per cached link than the parsed record.
 */
function linkCompactor(): (r: RedirectRecord) => RedirectRecord {
  const accounts = new Map<string, string>();
  return (r) => {
    let account = accounts.get(r.account_id);
    if (account === undefined) {
      if (accounts.size >= 100_000) accounts.clear();
      account = r.account_id;
      accounts.set(account, account);
    }
    // Management writes the url in its Location form; a record written before that is encoded here,
    // once per load, so the hot path never has to (follow.ts).
    const url = toLocation(r.url);
    // A link with neither an overlay nor a domain (nearly all of them) is kept without those members:
    // three fewer in-object fields, 24 bytes a link, 2.4 MB of the benchmark's 100k cached links. The
    // hot path reads `overlay_id` and `domain_id` with `!= null`, which an absent member passes, and
    // `frameable` only with an overlay. Few shapes keep the member reads' inline caches small.
    if (r.overlay_id == null && r.domain_id == null && r.s === undefined && r.b === undefined)
      return {
        id: r.id,
        account_id: account,
        url,
        active: r.active,
        expires_at: r.expires_at,
        password_hash: r.password_hash,
      };
    return {
      id: r.id,
      account_id: account,
      url,
      active: r.active,
      expires_at: r.expires_at,
      password_hash: r.password_hash,
      overlay_id: r.overlay_id ?? null,
      frameable: r.frameable ?? null,
      domain_id: r.domain_id ?? null,
      // A smart link's part (follow.ts reads `s` once; absent on every plain link), in the one shape
      // its reads stay fast in.
      ...(r.s !== undefined ? { s: uniformSmartRecord(r.s) } : {}),
      // A broken link's broken_url (follow.ts), in Location form as `url` is.
      ...(r.b !== undefined ? { b: toLocation(r.b) } : {}),
    };
  };
}

export class CachedLookup<T extends object> {
  private readonly cache: LRUCache<string, T | typeof MISSING>;
  // Reused on every peek: tells a stale hit from a fresh one without a second lookup.
  private readonly status: LRUCache.Status<string, T | typeof MISSING> = {};
  private readonly getOptions = { status: this.status };
  // The load of each id under way. An invalidation of the id (or a clear) takes its load out, and a
  // load caches what it read only if it is still the id's: it may have read the record before the
  // change. Other ids' invalidations leave it be, so a stream of edits elsewhere costs no cache fills.
  private readonly inFlight = new Map<string, Promise<T | null>>();
  /** peek()s answered from memory (a record or a known miss) and not: the cache hit ratio's terms. */
  hits = 0;
  misses = 0;

  constructor(
    private readonly kind: Kind<T>,
    private readonly opts: LookupOptions,
  ) {
    // An entry past its TTL is still served while one background load refreshes it: expiry never
    // stalls a request, and a record stays available while Redis and management are both away.
    this.cache = new LRUCache({
      max: opts.maxEntries,
      ttl: opts.ttlMs,
      allowStale: true,
      noDeleteOnStaleGet: true,
    });
  }

  /** A cached answer, synchronously (the hot path awaits nothing): undefined = not cached. */
  peek(id: string): T | null | undefined {
    const hit = this.cache.get(id, this.getOptions);
    if (hit === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    // One refresh per stale entry; later hits while it runs only read.
    if (this.status.get === "stale" && !this.inFlight.has(id)) this.resolve(id).catch(() => {});
    return hit === MISSING ? null : hit;
  }

  /**
   * null = no such record. Rejects with ResolverUnavailableError when no source could answer, and with
   * LookupRefusedError when `gate` refuses to let the lookup reach management.
   */
  resolve(id: string, gate?: ManagementGate): Promise<T | null> {
    const pending = this.inFlight.get(id);
    // Joining another caller's load: if that caller's gate refused it, this caller gets its own try.
    if (pending)
      return pending.catch((err: unknown) => {
        if (err instanceof LookupRefusedError) return this.resolve(id, gate);
        throw err;
      });
    const current = () => this.inFlight.get(id) === p;
    const p: Promise<T | null> = this.load(id, gate, current).finally(() => {
      if (current()) this.inFlight.delete(id);
    });
    this.inFlight.set(id, p);
    return p;
  }

  invalidate(id: string): void {
    this.cache.delete(id);
    this.inFlight.delete(id);
  }

  clear(): void {
    this.cache.clear();
    this.inFlight.clear();
  }

  /** `current`: whether this load is still the id's, i.e. no invalidation of it came meanwhile. */
  private async load(
    id: string,
    gate: ManagementGate | undefined,
    current: () => boolean,
  ): Promise<T | null> {
    let record: T | null | undefined = await this.fromRedis(id);
    // A Redis miss is not proof the id is unknown: Redis may have been flushed. Management heals it.
    if (record === undefined) {
      const admission = gate ? await gate() : undefined;
      if (admission && !admission.allowed) throw new LookupRefusedError(admission.retryAfter);
      record = await this.fromManagement(id);
      admission?.settle(record === null);
      if (record === null) this.shareMiss(id);
    }
    // Neither answered: not cached, so the next request tries again.
    if (record === undefined) throw new ResolverUnavailableError(`${this.kind.name} ${id}`);
    if (record !== null && this.kind.compact) record = this.kind.compact(record);
    // ±10% jitter: entries loaded together (a start, a burst) do not all expire together.
    const ttl = Math.round(this.opts.ttlMs * (0.9 + 0.2 * Math.random()));
    if (current()) this.cache.set(id, record ?? MISSING, { ttl });
    return record;
  }

  /**
   * undefined = not there or Redis unavailable; null = a shared miss and no record, or a tombstone (a
   * deleted link's or a removed domain's, rotator's or overlay's: decision 0052). A record of another shape counts
   * as not there. The record wins over a miss: a miss written by an instance whose lookup raced with the
   * code's creation cannot hide the new record.
   */
  private async fromRedis(id: string): Promise<T | null | undefined> {
    try {
      const { redis } = this.opts;
      const missKey = this.kind.missKey;
      const [raw, miss] = missKey
        ? await redis.mget(this.kind.redisKey(id), missKey(id))
        : [await redis.get(this.kind.redisKey(id)), null];
      if (raw == null) return miss == null ? undefined : null;
      const value: unknown = JSON.parse(raw);
      if (isRecordTombstone(value)) return null;
      const parsed = this.kind.schema.safeParse(value);
      return parsed.success ? parsed.data : undefined;
    } catch (err) {
      this.opts.onError?.(err, "redis");
      return undefined;
    }
  }

  /**
   * Tells every instance that management has no such id, for a short while. Management deletes the
   * entry whenever it writes the id's record (management/src/projections/link-records.ts), so a code created
   * after this still redirects at once.
   */
  private shareMiss(id: string): void {
    const { missKey } = this.kind;
    if (!missKey) return;
    this.opts.redis
      .set(missKey(id), "1", "EX", this.opts.missTtlSeconds ?? 60)
      .catch((err: unknown) => this.opts.onError?.(err, "redis"));
  }

  /** undefined = management could not answer; null = management says there is no such record. */
  private async fromManagement(id: string): Promise<T | null | undefined> {
    try {
      const res = await this.kind.fromManagement(id);
      if (res.status === 404) {
        await res.body?.cancel();
        return null;
      }
      if (!res.ok) {
        await res.body?.cancel();
        throw new Error(`management answered ${res.status} for a ${this.kind.name}`);
      }
      return this.kind.schema.parse(await res.json());
    } catch (err) {
      this.opts.onError?.(err, "management");
      return undefined;
    }
  }
}

/** The lookups of the redirect and the dispatch of invalidation messages to them. */
export class Resolver {
  readonly links: CachedLookup<RedirectRecord>;
  readonly domains: CachedLookup<DomainRecord>;
  readonly rotators: CachedLookup<RotatorRecord>;
  private overlayLookup: CachedLookup<OverlayRecord> | undefined;
  private readonly smallOptions: LookupOptions;
  private readonly management: InternalClient;

  constructor(opts: LookupOptions) {
    this.management = createInternalClient(opts.managementUrl, {
      [INTERNAL_HEADERS.token]: opts.internalToken,
    });
    this.links = new CachedLookup(
      {
        name: "link",
        schema: linkRecordSchema(opts.onUnreadableSmart ?? (() => {})),
        redisKey: redirectKey,
        missKey: redirectMissKey,
        fromManagement: (id) => this.resolve(INTERNAL_ROUTES.resolveLink, { code: id }),
        compact: linkCompactor(),
      },
      opts,
    );
    const small = { ...opts, maxEntries: Math.min(opts.maxEntries, SMALL_CACHE_MAX) };
    this.domains = new CachedLookup(
      {
        name: "domain",
        schema: DomainRecord,
        redisKey: domainKey,
        fromManagement: (id) => this.resolve(INTERNAL_ROUTES.resolveDomain, { host: id }),
        compact: domainLocations,
      },
      small,
    );
    this.rotators = new CachedLookup(
      {
        name: "rotator",
        schema: RotatorRecord,
        redisKey: rotatorKey,
        fromManagement: (id) => this.resolve(INTERNAL_ROUTES.resolveRotator, { slug: id }),
      },
      small,
    );
    this.smallOptions = small;
  }

  /** The caches by name, for metrics; the overlays' only once a request has used it. */
  caches(): [string, { hits: number; misses: number }][] {
    const all: [string, { hits: number; misses: number }][] = [
      ["link", this.links],
      ["domain", this.domains],
      ["rotator", this.rotators],
    ];
    if (this.overlayLookup) all.push(["overlay", this.overlayLookup]);
    return all;
  }

  /**
   * CTA overlays, read only when a link carries one (decision 0026). Made on the first such link:
   * lru-cache allocates its arrays for every entry it may hold up front, and most deployments serve
   * no overlay at all.
   */
  get overlays(): CachedLookup<OverlayRecord> {
    this.overlayLookup ??= new CachedLookup(
      {
        name: "overlay",
        schema: OverlayRecord,
        redisKey: overlayKey,
        fromManagement: (id) => this.resolve(INTERNAL_ROUTES.resolveOverlay, { id }),
      },
      this.smallOptions,
    );
    return this.overlayLookup;
  }

  private resolve<R extends InternalRouteDef>(route: R, params: PathParams<R["path"]>): Promise<Response> {
    return this.management.call(route, params, { timeoutMs: 2_000 });
  }

  clear(): void {
    this.links.clear();
    this.domains.clear();
    this.rotators.clear();
    this.overlayLookup?.clear();
  }

  /** A message on INVALIDATION_CHANNEL: `domain:<host>`, `rotator:<slug>` or a bare short code. */
  invalidate(message: string): void {
    if (message.startsWith("domain:")) this.domains.invalidate(message.slice(7).toLowerCase());
    else if (message.startsWith("rotator:")) this.rotators.invalidate(message.slice(8));
    else if (message.startsWith("overlay:")) this.overlayLookup?.invalidate(message.slice(8));
    else this.links.invalidate(message);
  }
}
