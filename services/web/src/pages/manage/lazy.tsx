// The manage pages (domains, campaigns, channels, overlays) load on first visit (their own chunks),
// so the initial bundle stays within budget.
import { lazyPage } from "../../components/lazyPage.tsx";

export const DomainsPage = lazyPage(() => import("./DomainsPage.tsx").then((m) => m.DomainsPage));
export const CampaignsPage = lazyPage(() => import("./CampaignsPage.tsx").then((m) => m.CampaignsPage));
export const ChannelsPage = lazyPage(() => import("./ChannelsPage.tsx").then((m) => m.ChannelsPage));
export const OverlaysPage = lazyPage(() => import("./OverlaysPage.tsx").then((m) => m.OverlaysPage));
