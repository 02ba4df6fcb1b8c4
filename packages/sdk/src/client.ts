// The Kurz API client: one method per route record (ROUTE_TABLE, RouteTypes), built by walking the
// records, so a route added to @kurz/contracts is callable with its types and no edit here. Only
// `fetch` goes over the network.
import { KurzApiError, KurzNetworkError } from "./errors.ts";
import { defaultSleep, isRetryable, type RetryOptions, retryDelay } from "./retry.ts";
import type { RouteInfo } from "./route-info.ts";
import { ROUTE_TABLE } from "./route-table.ts";
import type { UploadBody } from "./route-types.ts";
import type {
  CallArgs,
  CallInput,
  CallOptions,
  Envelope,
  LegacyApi,
  PageItem,
  PaginatedRoute,
  Result,
  RouteName,
  V1Api,
} from "./types.ts";

export interface KurzClientOptions {
  /** The public origin, e.g. `https://kurz.example.com` (paths carry /api/v1 and /api). */
  baseUrl: string;
  /** `kurz_live_…`; sent as `Authorization: Bearer`. Public routes work without one. */
  apiKey?: string;
  /** Default: the global fetch. */
  fetch?: typeof fetch;
  /** 429 and 503 are tried again after Retry-After (retry.ts says which methods when). */
  retry?: RetryOptions;
  /** Sent with every request (e.g. `X-Workspace-Id`). */
  headers?: Record<string, string>;
}

/** A whole answer: status, headers and the envelope (or bytes). */
export interface RawAnswer<K extends RouteName> {
  status: number;
  headers: Headers;
  body: Envelope<K>;
}

export interface KurzClient {
  /** Every `/api/v1` route by its record's name: `client.v1.createLink({ body: { url } })`. */
  readonly v1: V1Api;
  /** Every unversioned `/api` route: `client.legacy.listDomains()`. */
  readonly legacy: LegacyApi;
  /** Any route by its record's name; resolves to a v1 envelope's `data`, a legacy answer whole. */
  call<K extends RouteName>(name: K, ...args: CallArgs<K>): Promise<Result<K>>;
  /** Like call, with the status, headers and the whole envelope (`meta` of a list). */
  request<K extends RouteName>(name: K, ...args: CallArgs<K>): Promise<RawAnswer<K>>;
  /** Every item of a paginated list, fetching page after page as the loop asks for more. */
  paginate<K extends PaginatedRoute>(name: K, ...args: CallArgs<K>): AsyncIterable<PageItem<K>>;
  /** Uploads a file to import (POST /api/v1/imports); resolves to the queued job. */
  uploadImport(
    file: UploadBody,
    query?: CallInput<"createImport">["query"],
    options?: CallOptions,
  ): Promise<Result<"createImport">>;
  /** Polls an import job until it has completed or failed. */
  waitForImport(
    id: string,
    options?: { intervalMs?: number; signal?: AbortSignal },
  ): Promise<Result<"getImport">>;
}

export function createKurzClient(options: KurzClientOptions): KurzClient {
  const send = sender(options);
  const request = async <K extends RouteName>(name: K, ...args: CallArgs<K>): Promise<RawAnswer<K>> => {
    const info = ROUTE_TABLE[name];
    if (!info) throw new TypeError(`Unknown route: ${String(name)}`);
    const [input, callOptions] = args as [RequestParts | undefined, CallOptions | undefined];
    return (await send(info, input ?? {}, callOptions ?? {})) as RawAnswer<K>;
  };
  const call = async <K extends RouteName>(name: K, ...args: CallArgs<K>): Promise<Result<K>> => {
    const { body } = await request(name, ...args);
    return unwrap(body) as Result<K>;
  };
  const v1: Record<string, unknown> = {};
  const legacy: Record<string, unknown> = {};
  for (const [name, info] of Object.entries(ROUTE_TABLE) as [RouteName, RouteInfo][]) {
    const method = (...args: unknown[]) => (call as (n: string, ...a: unknown[]) => unknown)(name, ...args);
    if (info.path.startsWith("/api/v1/")) v1[name] = method;
    else legacy[name.replace(/^legacy(.)/, (_, first: string) => first.toLowerCase())] = method;
  }
  const sleep = options.retry?.sleep ?? defaultSleep;
  const client: KurzClient = {
    v1: Object.freeze(v1) as V1Api,
    legacy: Object.freeze(legacy) as LegacyApi,
    call,
    request,
    paginate: (name, ...args) => paginate(request as AnyRequest, name, args),
    uploadImport: (file, query, callOptions) =>
      (call as AnyCall)("createImport", { body: file, ...(query ? { query } : {}) }, callOptions) as Promise<
        Result<"createImport">
      >,
    waitForImport: async (id, { intervalMs = 1000, signal } = {}) => {
      for (;;) {
        const job = await client.call("getImport", { params: { id } }, signal ? { signal } : {});
        if (job.status === "completed" || job.status === "failed") return job;
        await sleep(intervalMs);
      }
    },
  };
  return client;
}

type RequestParts = { params?: Record<string, unknown>; query?: Record<string, unknown>; body?: unknown };
type AnyRequest = (name: string, ...args: unknown[]) => Promise<{ body: unknown }>;
type AnyCall = (name: string, ...args: unknown[]) => Promise<unknown>;

const unwrap = (body: unknown): unknown =>
  body && typeof body === "object" && (body as { success?: unknown }).success === true && "data" in body
    ? body.data
    : body;

/** Sends one route's request, trying again on 429/503 as retry.ts allows. */
function sender(options: KurzClientOptions) {
  const doFetch = options.fetch ?? globalThis.fetch;
  const attempts = Math.max(1, options.retry?.attempts ?? 3);
  const maxDelayMs = options.retry?.maxDelayMs ?? 60_000;
  const sleep = options.retry?.sleep ?? defaultSleep;
  const now = options.retry?.now ?? Date.now;
  const base = options.baseUrl.replace(/\/+$/, "");
  return async (info: RouteInfo, input: RequestParts, callOptions: CallOptions) => {
    const path = fillPath(info.path, input.params ?? {});
    const url = `${base}${path}${queryString(input.query)}`;
    const label = `${info.method} ${info.path}`;
    const headers: Record<string, string> = { accept: "application/json", ...options.headers };
    if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
    const body = encodeBody(info, input.body, callOptions, headers);
    Object.assign(headers, callOptions.headers);
    for (let attempt = 1; ; attempt++) {
      let res: Response;
      try {
        res = await doFetch(url, {
          method: info.method,
          headers,
          ...(body !== undefined ? { body } : {}),
          ...(callOptions.signal ? { signal: callOptions.signal } : {}),
        });
      } catch (cause) {
        if (callOptions.signal?.aborted) throw cause;
        throw new KurzNetworkError(label, { cause });
      }
      if (res.ok) {
        const parsed = info.json ? await readJson(res) : new Uint8Array(await res.arrayBuffer());
        return { status: res.status, headers: res.headers, body: parsed };
      }
      const failure = await readJson(res).catch(() => undefined);
      if (attempt < attempts && isRetryable(res.status, info.method)) {
        const delay = retryDelay(res.headers.get("retry-after"), attempt, now);
        if (delay <= maxDelayMs) {
          await sleep(delay);
          callOptions.signal?.throwIfAborted();
          continue;
        }
      }
      throw KurzApiError.from(res.status, failure, label);
    }
  };
}

function fillPath(path: string, params: Record<string, unknown>): string {
  return path.replace(/:([A-Za-z_]+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === null)
      throw new TypeError(`Missing path parameter "${name}" for ${path}`);
    return encodeURIComponent(String(value));
  });
}

function queryString(query: Record<string, unknown> | undefined): string {
  if (!query) return "";
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      search.append(key, item instanceof Date ? item.toISOString() : String(item));
    }
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

function encodeBody(
  info: RouteInfo,
  body: unknown,
  callOptions: CallOptions,
  headers: Record<string, string>,
): RequestInit["body"] {
  if (body === undefined) return undefined;
  if (info.consumes) {
    const blobType = body instanceof Blob ? body.type : "";
    const type = callOptions.contentType ?? (info.consumes.includes(blobType) ? blobType : undefined);
    headers["content-type"] = type ?? (typeof body === "string" ? "text/plain" : "application/octet-stream");
    return body as RequestInit["body"];
  }
  headers["content-type"] = "application/json";
  return JSON.stringify(body);
}

async function readJson(res: Response): Promise<unknown> {
  const text = await res.text();
  return text === "" ? undefined : JSON.parse(text);
}

async function* paginate(request: AnyRequest, name: string, args: unknown[]): AsyncGenerator<never> {
  const kind = ROUTE_TABLE[name as RouteName]?.pagination;
  if (!kind) throw new TypeError(`${name} is not a paginated list`);
  const [input = {}, callOptions] = args as [RequestParts | undefined, CallOptions | undefined];
  let query: Record<string, unknown> = { ...input.query };
  for (;;) {
    const { body } = await request(name, { ...input, query }, callOptions);
    const answer = body as { data: unknown; meta?: { page: number; total_pages: number } };
    const items = Array.isArray(answer.data) ? answer.data : (arrayMember(answer.data) ?? []);
    yield* items as never[];
    const data = answer.data as { next_cursor?: string | null; nextpage?: number | null };
    if (kind === "v1") {
      const meta = answer.meta;
      if (!meta || meta.page >= meta.total_pages || items.length === 0) return;
      query = { ...query, page: meta.page + 1 };
    } else if (kind === "cursor") {
      if (!data.next_cursor) return;
      query = { ...query, cursor: data.next_cursor };
    } else {
      if (!data.nextpage || items.length === 0) return;
      query = { ...query, page: data.nextpage };
    }
  }
}

/** A cursor or legacy page's items: the one array among its `data` members. */
const arrayMember = (data: unknown): unknown[] | undefined =>
  data && typeof data === "object" ? Object.values(data).find(Array.isArray) : undefined;
