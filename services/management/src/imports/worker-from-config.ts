// The import worker the service's settings ask for (docs/configuration.md, IMPORT_*): title fetches
// are charged to each job's budget, a session's at the session rate limit.
import type { Redis } from "ioredis";
import type { ManagementConfig } from "../config.ts";
import { chargeImportTitles } from "../titles/title-budget.ts";
import { ImportWorker, type ImportWorkerDeps } from "./import-worker.ts";

export function importWorkerFrom(
  config: Pick<
    ManagementConfig,
    | "IMPORT_CONCURRENCY"
    | "IMPORT_SLICE_MS"
    | "IMPORT_BATCH_SIZE"
    | "IMPORT_LEASE_MS"
    | "IMPORT_POLL_MS"
    | "SESSION_RATE_LIMIT_PER_MINUTE"
  >,
  deps: Pick<
    ImportWorkerDeps,
    "prisma" | "records" | "titles" | "hashes" | "onEventsWritten" | "retiredCodeGraceMs"
  > & { redis: Redis; logger: ImportWorkerDeps["logger"] & { warn(o: object, m?: string): void } },
): ImportWorker {
  const { redis, ...worker } = deps;
  return new ImportWorker({
    ...worker,
    chargeTitles: (budget, wanting) =>
      chargeImportTitles(
        {
          prisma: deps.prisma,
          redis,
          sessionPerMinute: config.SESSION_RATE_LIMIT_PER_MINUTE,
          logger: deps.logger,
        },
        budget,
        wanting,
      ),
    concurrency: config.IMPORT_CONCURRENCY,
    sliceMs: config.IMPORT_SLICE_MS,
    batchSize: config.IMPORT_BATCH_SIZE,
    leaseMs: config.IMPORT_LEASE_MS,
    pollMs: config.IMPORT_POLL_MS,
  });
}
