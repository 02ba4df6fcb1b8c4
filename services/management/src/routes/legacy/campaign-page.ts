// GET /c/:publicId: the public list page of a campaign (the campaign's `list` URL), served only while
// the campaign is public. No authentication: the gateway forwards /c/ here without identity. The
// address is the campaign's random public id, never its sequential `id`, so counting finds nothing.
// On the origin's own hosts (PUBLIC_BASE_URL, PUBLIC_HOSTS) any public campaign is served; on any other
// host only a campaign whose account verified that host as its branded domain. Every other case
// (unknown id, private campaign, another account's domain, malformed id or Host) is the same 404 page,
// so none can be told apart from a missing one. Which links are listed is campaigns/campaigns.ts's.
import { createHash } from "node:crypto";
import { parseHost } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { htmlPageHeaders, type OriginHosts } from "@kurz/service-kit";
import { type Response, Router } from "express";
import { findPublicCampaign } from "../../campaigns/find-public-campaign.ts";
import { accountDomains, shortUrlOf } from "../../links/short-url.ts";

const escapeHtml = (value: string) =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );

const STYLE =
  "body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1a1410}" +
  "li{margin:.6rem 0}a{color:#0b57d0}small{color:#666}";

// The one inline style, by its hash; no scripts, frames, forms or remote loads; never framed
// (htmlPageHeaders).
const STYLE_HASH = createHash("sha256").update(STYLE).digest("base64");
const PAGE_HEADERS = htmlPageHeaders(
  `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; form-action 'none'`,
  { referrerPolicy: "no-referrer" },
);

function page(res: Response, status: number, title: string, body: string): void {
  res
    .status(status)
    .set({
      ...PAGE_HEADERS,
      "Content-Type": "text/html; charset=utf-8",
      // Making a campaign private must take effect at once.
      "Cache-Control": "no-cache",
    })
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`,
    );
}

const notFoundPage = (res: Response) =>
  page(res, 404, "Not found", "<h1>Not found</h1><p>There is no public campaign at this address.</p>");

/** A campaign's public id as the database makes it: 32 lower-case hex digits. */
const PUBLIC_ID = /^[0-9a-f]{32}$/;

export function campaignPageRouter(deps: {
  prisma: PrismaClient;
  baseUrl: string;
  originHosts: OriginHosts;
}): Router {
  const router = Router();

  router.get("/:publicId", async (req, res) => {
    const { publicId } = req.params;
    if (!PUBLIC_ID.test(publicId)) return notFoundPage(res);
    const host = req.headers.host;
    let brandedHost: string | null = null;
    if (!deps.originHosts.has(host)) {
      const parts = host === undefined ? null : parseHost(host);
      // Branded domains never carry a port (contracts' host.ts); the name is compared.
      if (parts === null) return notFoundPage(res);
      brandedHost = parts.hostname;
    }
    const campaign = await findPublicCampaign(deps.prisma, publicId, brandedHost);
    if (!campaign) return notFoundPage(res);
    const domains = await accountDomains(deps.prisma, campaign.accountId);
    const items = campaign.links.map((link) => {
      const url = shortUrlOf(link, deps.baseUrl, domains);
      return `<li><a href="${escapeHtml(url)}" rel="nofollow">${escapeHtml(link.title)}</a><br><small>${escapeHtml(url)}</small></li>`;
    });
    const list = items.length > 0 ? `<ul>${items.join("")}</ul>` : "<p>This campaign has no links yet.</p>";
    page(res, 200, campaign.name, `<h1>${escapeHtml(campaign.name)}</h1>${list}`);
  });

  router.use((_req, res) => notFoundPage(res));
  return router;
}
