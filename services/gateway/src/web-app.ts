// The dashboard's static files (services/web/dist, built by infra/build/web.ts): index.html
// for the app's pages, hashed files under /assets/ with an immutable cache. Only on the origin's hosts:
// a branded domain's paths stay its own (its `/` is its redirect_root, decided by the redirect or the
// edge). Only names from a fixed pattern are looked up, inside dist/assets, so no path can leave it.
// Every answer carries a strict Content-Security-Policy: the app loads scripts, styles and data from
// its own origin only, and no page may frame it.
import { readFileSync, statSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { htmlPageHeaders, type OriginHosts } from "@kurz/service-kit";

/** services/web/dist, next to this service in the repository (and in the image). */
export const DEFAULT_WEB_DIST = resolve(fileURLToPath(new URL("../../web/dist", import.meta.url)));

const APP_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "form-action 'self'",
].join("; ");

const SECURITY_HEADERS: Record<string, string> = {
  ...htmlPageHeaders(APP_POLICY),
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=()",
};

/** The app's whole Content-Security-Policy, as sent (its own directives, then no framing, no `<base>`). */
export const WEB_CSP = SECURITY_HEADERS["Content-Security-Policy"]!;

const TYPES: Record<string, string> = {
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  woff2: "font/woff2",
  json: "application/json",
};

/** Pages of the app (docs/dashboard.md); every one is a reserved alias, so no short code is shadowed. */
const PAGE = /^\/(?:login|signup|dashboard(?:\/[A-Za-z0-9._~-]+)*|stats\/[A-Za-z0-9_-]{1,100})\/?$/;
/** The public statistics page of one link: its short code, any code the redirect serves (isCodeShaped). */
const STATS_PAGE = /^\/stats\/([A-Za-z0-9_-]{1,100})\/?$/;
/** Vite's hashed output names: no slash, no leading dot. */
const ASSET = /^\/assets\/([A-Za-z0-9_-][A-Za-z0-9._-]{0,127})$/;

interface File {
  body: Buffer;
  gzip: Buffer | null;
  type: string;
}

/** Answers a dashboard path and returns true; false for any other path (the caller routes it on). */
export type WebApp = (req: IncomingMessage, res: ServerResponse, path: string) => boolean;

/**
 * The HTTP status of a link's public statistics page: 404 when its analytics are not public (or it
 * does not exist), so that crawlers and link checkers see what a visitor sees. The page is the same
 * app either way; it shows "not public" from the API's own 404.
 */
export type StatsPageStatus = (
  req: IncomingMessage,
  res: ServerResponse,
  shortCode: string,
) => Promise<number>;

export function createWebApp(
  origin: OriginHosts,
  distDir = DEFAULT_WEB_DIST,
  statsStatus?: StatsPageStatus,
): WebApp {
  const isPublicHost = (host: string | undefined) => origin.has(host);

  // Files are read once and kept: the build replaces dist whole (new names), and a rebuilt index.html
  // is picked up by its modification time.
  const files = new Map<string, File>();
  let index: { mtimeMs: number; file: File } | null = null;
  const load = (path: string, type: string): File => {
    const body = readFileSync(path);
    return { body, type, gzip: body.length > 1024 ? gzipSync(body) : null };
  };
  const indexFile = (): File | null => {
    try {
      const path = join(distDir, "index.html");
      const { mtimeMs } = statSync(path);
      if (index?.mtimeMs !== mtimeMs) index = { mtimeMs, file: load(path, "text/html; charset=utf-8") };
      return index.file;
    } catch {
      return null;
    }
  };
  const asset = (name: string): File | null => {
    const cached = files.get(name);
    if (cached) return cached;
    const type = TYPES[name.slice(name.lastIndexOf(".") + 1)];
    if (!type) return null;
    try {
      const file = load(join(distDir, "assets", name), type);
      if (files.size < 500) files.set(name, file);
      return file;
    } catch {
      return null;
    }
  };

  const send = (req: IncomingMessage, res: ServerResponse, status: number, file: File, cache: string) => {
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
    res.setHeader("content-type", file.type);
    res.setHeader("cache-control", cache);
    res.setHeader("vary", "accept-encoding");
    const gzip = file.gzip && /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""));
    const body = gzip ? file.gzip! : file.body;
    if (gzip) res.setHeader("content-encoding", "gzip");
    res.setHeader("content-length", String(body.length));
    res.statusCode = status;
    res.end(req.method === "HEAD" ? undefined : body);
  };
  const plain = (req: IncomingMessage, res: ServerResponse, status: number, text: string) =>
    send(
      req,
      res,
      status,
      { body: Buffer.from(text), gzip: null, type: "text/plain; charset=utf-8" },
      "no-store",
    );

  return (req, res, path) => {
    const isRoot = path === "/";
    const page = isRoot || PAGE.test(path);
    const assetName = page ? null : ASSET.exec(path)?.[1];
    if (!page && assetName === undefined && !path.startsWith("/assets/")) return false;
    if (!isPublicHost(req.headers.host)) return false;
    if (req.method !== "GET" && req.method !== "HEAD") {
      if (!req.complete) req.resume();
      res.setHeader("allow", "GET, HEAD");
      plain(req, res, 405, "Method not allowed");
      return true;
    }
    if (page) {
      const file = indexFile();
      const statsCode = file && statsStatus ? STATS_PAGE.exec(path)?.[1] : undefined;
      if (file && statsCode && statsStatus) {
        // A failed check serves the page as 200: the app then asks the API itself and shows its answer.
        statsStatus(req, res, statsCode).then(
          (status) => send(req, res, status, file, "no-cache"),
          () => send(req, res, 200, file, "no-cache"),
        );
      } else if (file) send(req, res, 200, file, "no-cache");
      else
        plain(
          req,
          res,
          503,
          "The dashboard is not built: run ./kurz up, or node --import tsx infra/build/web.ts",
        );
      return true;
    }
    const file = assetName ? asset(assetName) : null;
    if (file) send(req, res, 200, file, "public, max-age=31536000, immutable");
    else plain(req, res, 404, "Not found");
    return true;
  };
}
