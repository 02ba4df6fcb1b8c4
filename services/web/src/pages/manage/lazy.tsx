// Issue 13's pages load on first visit (their own chunks), so the initial bundle stays within budget.
import type { ComponentType, FunctionComponent } from "preact";
import { useEffect, useState } from "preact/hooks";
import { Loading } from "../common.tsx";

export function lazyPage(load: () => Promise<ComponentType>): FunctionComponent {
  let loaded: ComponentType | undefined;
  return function LazyPage() {
    const [Page, setPage] = useState<ComponentType | undefined>(() => loaded);
    const [failed, setFailed] = useState(false);
    useEffect(() => {
      if (loaded) return;
      load().then(
        (c) => {
          loaded = c;
          setPage(() => c);
        },
        () => setFailed(true),
      );
    }, []);
    if (failed)
      return (
        <p class="error" role="alert">
          This page could not be loaded. Reload to try again.
        </p>
      );
    return Page ? <Page /> : <Loading what="Loading page" />;
  };
}

export const DomainsPage = lazyPage(() => import("./DomainsPage.tsx").then((m) => m.DomainsPage));
export const CampaignsPage = lazyPage(() => import("./CampaignsPage.tsx").then((m) => m.CampaignsPage));
export const ChannelsPage = lazyPage(() => import("./ChannelsPage.tsx").then((m) => m.ChannelsPage));
export const OverlaysPage = lazyPage(() => import("./OverlaysPage.tsx").then((m) => m.OverlaysPage));
