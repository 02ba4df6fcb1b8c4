// Reads every link of a running Kutt or YOURLS through its own API, for `./kurz import --from-kutt` and
// `--from-yourls`: the pages come back as one JSON array of the peer's page objects, the same file a
// person gets by saving each page, so the import reads it as it reads an uploaded file.
// The operator names the peer, so loopback and private addresses are allowed; what is guarded is what
// a peer can do to us: only http(s), no redirects followed (a key must not travel to another host), a
// deadline per request, a size cap on the whole export, and errors that never show the key or the
// signature (they are not in any URL we print, and are masked in any text a peer sends back).
import { IMPORT_MAX_BYTES, IMPORT_MAX_ROWS } from "@kurz/contracts";

export class PeerExportError extends Error {}

export interface PeerFetchOptions {
  /** Per request. */
  timeoutMs?: number;
  /** For the whole export, all pages together. */
  maxBytes?: number;
  /** Links asked per YOURLS page (Kutt answers at most 50 whatever is asked). */
  pageSize?: number;
  /** After each page: links read so far and the total the peer reported. */
  onPage?: (read: number, total: number) => void;
}

/** Kutt answers at most 50 links per page whatever `limit` asks; we ask for that and step by what came. */
export const KUTT_PAGE = 50;
/** YOURLS has no cap on `limit`; pages this large keep each answer well under the size cap. */
export const YOURLS_PAGE = 10_000;
const DEFAULT_TIMEOUT_MS = 30_000;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Replaces every occurrence of the secrets, so a peer echoing a request cannot print them. */
const mask = (text: string, secrets: string[]) =>
  secrets.filter((s) => s.length > 0).reduce((t, s) => t.split(s).join("***"), text);

function peerUrl(address: string, peer: string): URL {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new PeerExportError(`${peer}'s address must be a full URL such as https://sho.rt`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new PeerExportError(`${peer}'s address must start with http:// or https://`);
  }
  if (url.username || url.password) {
    throw new PeerExportError(`give ${peer}'s address without user:password@; the key is passed on its own`);
  }
  url.search = "";
  url.hash = "";
  return url;
}

interface Request {
  peer: string;
  url: URL;
  headers: Record<string, string>;
  secrets: string[];
  timeoutMs: number;
  /** Bytes still allowed for this export. */
  budget: number;
}

/** GET one page as JSON; the error messages name the peer's origin and path, never the query. */
async function getJson(req: Request): Promise<{ body: unknown; bytes: number }> {
  const where = `${req.peer} at ${req.url.origin}${req.url.pathname}`;
  let res: Response;
  try {
    res = await fetch(req.url, {
      headers: { accept: "application/json", ...req.headers },
      redirect: "manual",
      signal: AbortSignal.timeout(req.timeoutMs),
    });
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    if (e.name === "TimeoutError") {
      throw new PeerExportError(`${where} did not answer within ${req.timeoutMs / 1000} s`);
    }
    throw new PeerExportError(
      mask(`could not reach ${where}: ${e.cause?.code ?? e.cause?.message ?? e.message}`, req.secrets),
    );
  }
  if (res.status >= 300 && res.status < 400) {
    await res.body?.cancel();
    const to = res.headers.get("location");
    let target = "";
    try {
      if (to) {
        const u = new URL(to, req.url);
        target = ` to ${u.origin}${u.pathname}`;
      }
    } catch {}
    throw new PeerExportError(
      `${where} answered a redirect (${res.status})${mask(target, req.secrets)}; give the address it redirects to`,
    );
  }
  let text: string;
  let bytes = 0;
  try {
    const chunks: Uint8Array[] = [];
    for await (const chunk of res.body ?? []) {
      bytes += chunk.byteLength;
      if (bytes > req.budget) {
        throw new PeerExportError(
          `${where} sent more than the ${Math.round(IMPORT_MAX_BYTES / 1024 / 1024)} MiB an import takes`,
        );
      }
      chunks.push(chunk);
    }
    text = Buffer.concat(chunks).toString("utf8");
  } catch (err) {
    await res.body?.cancel().catch(() => {});
    if (err instanceof PeerExportError) throw err;
    const e = err as Error;
    throw new PeerExportError(
      e.name === "TimeoutError"
        ? `${where} did not finish answering within ${req.timeoutMs / 1000} s`
        : mask(`${where} broke off its answer: ${e.message}`, req.secrets),
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    const type = res.headers.get("content-type") ?? "no content type";
    throw new PeerExportError(
      `${where} answered ${res.status} with something that is not JSON (${type}); is this the ${req.peer} address?`,
    );
  }
  if (!res.ok) {
    const said = isRecord(body) ? (body.error ?? body.message) : undefined;
    const detail = typeof said === "string" && said !== "" ? `: ${said.slice(0, 200)}` : "";
    throw new PeerExportError(mask(`${where} answered ${res.status}${detail}`, req.secrets));
  }
  return { body, bytes };
}

const tooMany = (peer: string, total: number) =>
  new PeerExportError(`${peer} holds ${total} links; an import takes at most ${IMPORT_MAX_ROWS}`);

/**
 * Every link of the Kutt account the API key belongs to: `GET /api/v2/links?limit=50&skip=N`, stepping
 * `skip` by the links each page held until Kutt's `total` is read (or a page comes back empty).
 */
export async function fetchKuttExport(address: string, apiKey: string, opts: PeerFetchOptions = {}) {
  const base = peerUrl(address, "Kutt");
  const path = base.pathname.replace(/\/+$/, "");
  base.pathname = path.endsWith("/api/v2/links") ? path : `${path}/api/v2/links`;
  const pages: unknown[] = [];
  let budget = opts.maxBytes ?? IMPORT_MAX_BYTES;
  let read = 0;
  for (;;) {
    const url = new URL(base);
    url.searchParams.set("limit", String(KUTT_PAGE));
    url.searchParams.set("skip", String(read));
    const { body, bytes } = await getJson({
      peer: "Kutt",
      url,
      headers: { "x-api-key": apiKey },
      secrets: [apiKey],
      timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      budget,
    });
    budget -= bytes;
    if (!isRecord(body) || !Array.isArray(body.data) || typeof body.total !== "number") {
      throw new PeerExportError(
        `Kutt at ${base.origin}${base.pathname} did not answer with a page of links ({ data, total })`,
      );
    }
    if (body.total > IMPORT_MAX_ROWS) throw tooMany("Kutt", body.total);
    pages.push(body);
    read += body.data.length;
    opts.onPage?.(read, body.total);
    if (body.data.length === 0 || read >= body.total) break;
  }
  return Buffer.from(JSON.stringify(pages));
}

/** Where YOURLS's API is: the address of yourls-api.php itself, or the site it sits at the root of. */
function yourlsApiUrl(address: string): URL {
  const url = peerUrl(address, "YOURLS");
  if (!url.pathname.endsWith(".php")) url.pathname = `${url.pathname.replace(/\/+$/, "")}/yourls-api.php`;
  return url;
}

/**
 * Every link of a YOURLS: `yourls-api.php?action=stats&filter=last&limit=10000&start=N&format=json`,
 * until its `stats.total_links` is read or a page comes back short. Without a signature the request is
 * anonymous, which a public (not YOURLS_PRIVATE) install accepts.
 */
export async function fetchYourlsExport(
  address: string,
  signature: string | undefined,
  opts: PeerFetchOptions = {},
) {
  const base = yourlsApiUrl(address);
  const pageSize = opts.pageSize ?? YOURLS_PAGE;
  const pages: unknown[] = [];
  let budget = opts.maxBytes ?? IMPORT_MAX_BYTES;
  let read = 0;
  for (;;) {
    const url = new URL(base);
    for (const [k, v] of Object.entries({
      action: "stats",
      filter: "last",
      limit: String(pageSize),
      start: String(read),
      format: "json",
    }))
      url.searchParams.set(k, v);
    if (signature) url.searchParams.set("signature", signature);
    const { body, bytes } = await getJson({
      peer: "YOURLS",
      url,
      headers: {},
      secrets: signature ? [signature] : [],
      timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      budget,
    });
    budget -= bytes;
    const stats = isRecord(body) && isRecord(body.stats) ? body.stats : undefined;
    const total = Number(stats?.total_links);
    if (!isRecord(body) || !stats || !Number.isInteger(total)) {
      throw new PeerExportError(
        `YOURLS at ${base.origin}${base.pathname} did not answer with its stats ({ links, stats })`,
      );
    }
    if (total > IMPORT_MAX_ROWS) throw tooMany("YOURLS", total);
    // YOURLS leaves `links` out when a page has none.
    const links = isRecord(body.links) ? Object.keys(body.links).length : 0;
    if (links > 0) pages.push(body);
    read += links;
    opts.onPage?.(read, total);
    if (links < pageSize || read >= total) break;
  }
  if (pages.length === 0) throw new PeerExportError("YOURLS has no links to import");
  return Buffer.from(JSON.stringify(pages));
}
