// GET /c/:id: the public list page of a campaign (the `list` URL of SPEC 2.10), served only while the
// campaign is public. No authentication: the gateway forwards /c/ here without identity. Every other
// case (unknown id, private campaign, malformed id) is the same 404 page, so private campaigns cannot
// be told apart from missing ones. Which links are listed is legacy/campaigns-service.ts's rule.
import { createHash } from "node:crypto";
import { LegacyIdParams } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { htmlPageHeaders } from "@kurz/service-kit";
import { type Response, Router } from "express";
import { findPublicCampaign } from "../../legacy/campaigns-service.ts";
import { accountDomains, shortUrlOf } from "../../short-url.ts";

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

export function campaignPageRouter(deps: { prisma: PrismaClient; baseUrl: string }): Router {
  const router = Router();

  router.get("/:id", async (req, res) => {
    const params = LegacyIdParams.safeParse(req.params);
    if (!params.success) return notFoundPage(res);
    const campaign = await findPublicCampaign(deps.prisma, params.data.id);
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
