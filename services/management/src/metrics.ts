// Management's series beside the request histogram (docs/observability.md). Those that need a query
// are read on each scrape, bounded by scrapeGauge's timeout, so a slow database never holds a scrape
// and idle instances cost nothing between scrapes.
import type { EventBus } from "@kurz/bus";
import type { PrismaClient } from "@kurz/db";
import {
  busLagGauge,
  createServiceMetrics,
  type ServiceMetrics,
  scrapeCounter,
  scrapeGauge,
} from "@kurz/service-kit";
import type { WebhookDispatcher } from "./webhooks/dispatcher.ts";

export function managementMetrics(deps: {
  prisma: PrismaClient;
  bus: EventBus;
  webhooks: Pick<WebhookDispatcher, "outcomes">;
}): ServiceMetrics {
  const { prisma, bus } = deps;
  const metrics = createServiceMetrics();
  busLagGauge(metrics, bus);
  scrapeGauge(metrics, {
    name: "outbox_oldest_event_age_seconds",
    help: "Age of the oldest event in the outbox not yet relayed to the bus (0 when empty).",
    read: async () => {
      const [row] = await prisma.$queryRaw<{ age: number | null }[]>`
        SELECT EXTRACT(EPOCH FROM now() - min(created_at))::float8 AS age FROM outbox_events`;
      return [{ value: Math.max(0, row?.age ?? 0) }];
    },
  });
  scrapeGauge(metrics, {
    name: "outbox_events",
    help: "Events in the outbox not yet relayed to the bus.",
    read: async () => {
      const [row] = await prisma.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM outbox_events`;
      return [{ value: row?.n ?? 0 }];
    },
  });
  scrapeCounter(metrics, {
    name: "webhook_deliveries_total",
    help: "Webhook delivery attempts by outcome: delivered, retrying (failed, another attempt scheduled), failed (given up).",
    labelNames: ["outcome"],
    read: () =>
      Object.entries(deps.webhooks.outcomes).map(([outcome, value]) => ({ labels: { outcome }, value })),
  });
  scrapeGauge(metrics, {
    name: "import_rows",
    help: "Rows of the queued and running import jobs: state=total (in their files) and state=processed.",
    labelNames: ["state"],
    read: async () => {
      const [row] = await prisma.$queryRaw<{ total: number; processed: number }[]>`
        SELECT coalesce(sum(total), 0)::int AS total, coalesce(sum(processed), 0)::int AS processed
          FROM import_jobs WHERE status IN ('queued', 'running')`;
      return [
        { labels: { state: "total" }, value: row?.total ?? 0 },
        { labels: { state: "processed" }, value: row?.processed ?? 0 },
      ];
    },
  });
  scrapeGauge(metrics, {
    name: "import_jobs",
    help: "Import jobs not finished, by status (queued, running).",
    labelNames: ["status"],
    read: async () => {
      const rows = await prisma.$queryRaw<{ status: string; n: number }[]>`
        SELECT status, count(*)::int AS n FROM import_jobs WHERE status IN ('queued', 'running') GROUP BY status`;
      const by = new Map(rows.map((r) => [r.status, r.n]));
      return ["queued", "running"].map((status) => ({ labels: { status }, value: by.get(status) ?? 0 }));
    },
  });
  return metrics;
}
