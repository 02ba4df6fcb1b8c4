// The /docs page: Swagger UI (swagger-ui-dist, Apache-2.0) served from node_modules, never a CDN, so the
// docs work offline and the page loads nothing from third parties.

import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { htmlPageHeaders, methodNotAllowedError, notFound, sendError } from "@kurz/service-kit";

const distDir = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
// Only what the page loads; the package also ships a demo index pointing at a public petstore.
const ASSETS = new Set(["swagger-ui.css", "swagger-ui-bundle.js", "favicon-32x32.png", "favicon-16x16.png"]);

function page(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>Kurz API reference</title>
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<style>body{margin:0}.kurz-intro{font:15px/1.5 system-ui,sans-serif;max-width:1460px;margin:1rem auto 0;padding:0 20px;color:#3b4151}
.kurz-intro code{background:#f3efe9;padding:.1rem .3rem;border-radius:3px}</style>
</head>
<body>
<div class="kurz-intro"><p>Authenticate with <code>Authorization: Bearer kurz_live_…</code> (use <b>Authorize</b> below to try requests).
Rate limits are reported in <code>X-RateLimit-*</code> headers. OpenAPI 3.1 document: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</p></div>
<div id="swagger-ui"><noscript>This page needs JavaScript; the raw document is at /api/v1/openapi.json.</noscript></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>`;
}

// A separate file rather than an inline script, so a strict Content-Security-Policy can allow 'self' only.
const INIT = `window.ui = SwaggerUIBundle({
  url: "/api/v1/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  tryItOutEnabled: false,
  validatorUrl: null
});
`;

const PAGE_HEADERS = htmlPageHeaders(
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'",
);

const TYPES: Record<string, string> = {
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  png: "image/png",
};

/**
 * Serves `/docs`, `/docs/init.js` and the page's assets; returns false for any other path, or a method
 * other than GET/HEAD on the scripts and assets, so the caller routes it on. `path` is the canonical
 * path, lower-cased for matching as the API routes are.
 */
export function createDocsPage(): (req: IncomingMessage, res: ServerResponse, path: string) => boolean {
  const html = page();
  return (req, res, path) => {
    const read = req.method === "GET" || req.method === "HEAD";
    if (path === "/docs" || path === "/docs/") {
      if (!read) {
        sendError(res, methodNotAllowedError(["GET", "HEAD"]), "v1");
        return true;
      }
      send(req, res, 200, { ...PAGE_HEADERS, "Content-Type": "text/html; charset=utf-8" }, html);
      return true;
    }
    if (!read) return false;
    if (path === "/docs/init.js") {
      send(req, res, 200, { "Content-Type": TYPES.js!, "Cache-Control": "no-cache" }, INIT);
      return true;
    }
    const file = path.startsWith(ASSET_PREFIX) ? path.slice(ASSET_PREFIX.length) : "";
    if (!ASSETS.has(file)) return false;
    sendAsset(req, res, file);
    return true;
  };
}

const ASSET_PREFIX = "/docs/assets/";

function send(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: string,
): void {
  res.writeHead(status, { ...headers, "Content-Length": Buffer.byteLength(body) });
  res.end(req.method === "HEAD" ? undefined : body);
}

/** Streams one of the allow-listed files (never a path from the request: `file` is a member of ASSETS). */
function sendAsset(req: IncomingMessage, res: ServerResponse, file: string): void {
  const full = join(distDir, file);
  stat(full).then(
    (info) => {
      res.writeHead(200, {
        "Content-Type": TYPES[file.slice(file.lastIndexOf(".") + 1)] ?? "application/octet-stream",
        "Content-Length": info.size,
        "Cache-Control": "public, max-age=86400",
        "Last-Modified": info.mtime.toUTCString(),
      });
      if (req.method === "HEAD") return res.end();
      createReadStream(full)
        .on("error", () => res.destroy())
        .pipe(res);
    },
    () => sendError(res, notFound("Route not found"), "v1"),
  );
}
