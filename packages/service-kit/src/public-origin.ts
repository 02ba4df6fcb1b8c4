/**
 * Which paths of the single-machine public origin belong to the gateway (decision 0038): `/api`,
 * the docs page and campaign pages under `/c/`. The redirect, which owns the public port, forwards or
 * splices these to the gateway; the gateway sends every other request of a spliced connection back
 * to the redirect. Both must draw the line in the same place, so it is drawn once, here.
 */
export function isApiPath(url: string): boolean {
  return (
    url.startsWith("/api/") ||
    url === "/api" ||
    url.startsWith("/api?") ||
    url.startsWith("/c/") ||
    url === "/docs" ||
    url.startsWith("/docs/") ||
    url.startsWith("/docs?")
  );
}

/**
 * A campaign's public list page (`/c/<public id>`): the one gateway path a branded domain also serves,
 * for its owner's campaigns only (management decides, from the Host).
 */
export function isCampaignPagePath(url: string): boolean {
  return url.startsWith("/c/");
}
