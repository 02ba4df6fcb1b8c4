// Pages loaded on first visit (their own chunks), so the initial JavaScript stays within its budget.
// Preact's `lazy` lives in preact/compat, which the app does not otherwise need: this is its few lines.
import type { ComponentType, FunctionComponent } from "preact";
import { useEffect, useState } from "preact/hooks";
import { Loading } from "../pages/common.tsx";

export function lazyPage<P extends object>(load: () => Promise<ComponentType<P>>): FunctionComponent<P> {
  let loaded: ComponentType<P> | undefined;
  return function LazyPage(props: P) {
    const [Page, setPage] = useState<ComponentType<P> | undefined>(() => loaded);
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
    return Page ? <Page {...props} /> : <Loading what="Loading page" />;
  };
}
