// What link-preview fetchers (chat apps, social networks: isbot's list) get for a link with an Open
// Graph preview: a small page of Open Graph and Twitter card tags, with a link and a meta refresh to
// the destination for anything that renders it. Every value comes from the link's owner or the
// request, so every one is HTML-escaped. People never see it: they get the redirect.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { SmartRecord } from "@kurz/contracts";
import { htmlPageHeaders } from "@kurz/service-kit";
import { escapeHtml } from "./overlay-page.ts";

// Nothing loads: the page is tags and one link. The refresh is not a fetch, so CSP leaves it alone.
const HEADERS = {
  ...htmlPageHeaders("default-src 'none'"),
  "content-type": "text/html; charset=utf-8",
  // Per link and per visit (rules may send fetchers to different places): no shared cache keeps it.
  "cache-control": "private, max-age=0",
};

type Og = NonNullable<SmartRecord["g"]>;

/** The page for a preview `og` of a short link at `shortUrl` going to `destination`. */
export function renderPreviewPage(og: Og, shortUrl: string, destination: string): string {
  const title = og.t ?? shortUrl;
  const meta = (attr: "property" | "name", key: string, value: string) =>
    `<meta ${attr}="${key}" content="${escapeHtml(value)}">`;
  const tags = [
    meta("property", "og:type", "website"),
    meta("property", "og:title", title),
    meta("property", "og:url", shortUrl),
    meta("name", "twitter:card", og.i !== undefined ? "summary_large_image" : "summary"),
    meta("name", "twitter:title", title),
  ];
  if (og.d !== undefined) {
    tags.push(meta("property", "og:description", og.d), meta("name", "description", og.d));
    tags.push(meta("name", "twitter:description", og.d));
  }
  if (og.i !== undefined) tags.push(meta("property", "og:image", og.i), meta("name", "twitter:image", og.i));
  const to = escapeHtml(destination);
  return (
    `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>${tags.join("")}` +
    `<meta http-equiv="refresh" content="0; url=${to}"></head>` +
    `<body><p><a href="${to}">${escapeHtml(title)}</a></p></body></html>`
  );
}

export function sendPreviewPage(req: IncomingMessage, res: ServerResponse, html: string): void {
  const body = Buffer.from(html);
  res.writeHead(200, { ...HEADERS, "content-length": body.length });
  res.end(req.method === "HEAD" ? undefined : body);
}
