// The routes of the webhooks, import and export pages, each page its own lazily loaded chunk.
// Kept here so the shell's router gains one line.
import { Route } from "wouter-preact";
import { lazyPage } from "../../components/lazyPage.tsx";

const WebhooksPage = lazyPage(() => import("../WebhooksPage.tsx").then((m) => m.WebhooksPage));
const WebhookDeliveriesPage = lazyPage<{ id: string }>(() =>
  import("../WebhookDeliveriesPage.tsx").then((m) => m.WebhookDeliveriesPage),
);
const ImportPage = lazyPage(() => import("../ImportPage.tsx").then((m) => m.ImportPage));
const ExportPage = lazyPage(() => import("../ExportPage.tsx").then((m) => m.ExportPage));

export const DataRoutes = [
  <Route key="webhooks" path="/dashboard/webhooks">
    {() => <WebhooksPage />}
  </Route>,
  <Route key="webhook" path="/dashboard/webhooks/:id">
    {(p: { id: string }) => <WebhookDeliveriesPage id={p.id} />}
  </Route>,
  <Route key="import" path="/dashboard/import">
    {() => <ImportPage />}
  </Route>,
  <Route key="export" path="/dashboard/export">
    {() => <ExportPage />}
  </Route>,
];
