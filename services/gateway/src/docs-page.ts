// The /docs page: Swagger UI (swagger-ui-dist, Apache-2.0) served from node_modules, never a CDN, so the
// docs work offline and the page loads nothing from third parties.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { methodNotAllowed } from "@kurz/service-kit";
import { type Request, type Response, Router } from "express";

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

const CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'";

export function docsRouter(): Router {
  const router = Router();
  const html = page();
  router
    .route("/docs")
    .get((_req: Request, res: Response) => {
      res.set("Content-Security-Policy", CSP).type("html").send(html);
    })
    .all(methodNotAllowed(["GET"]));
  router.get("/docs/init.js", (_req, res) => {
    res.type("js").set("Cache-Control", "no-cache").send(INIT);
  });
  router.get("/docs/assets/:file", (req, res, next) => {
    const file = req.params.file;
    if (!ASSETS.has(file)) return next();
    // pnpm keeps packages under node_modules/.pnpm, which send() would refuse as a dot-directory.
    res.sendFile(join(distDir, file), { maxAge: "1d", dotfiles: "allow" });
  });
  return router;
}
