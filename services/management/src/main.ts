import { createServer } from "node:http";
import { createPrisma } from "@kurz/db";
import { createLogger, createServiceBus, listen, runService, startTelemetry } from "@kurz/service-kit";
import { Redis } from "ioredis";
import { createManagementApp } from "./app.ts";
import { loadManagementConfig } from "./config.ts";
import { OutboxRelay } from "./outbox.ts";
import { RedirectRecords } from "./redirect-records.ts";

const config = loadManagementConfig();
const logger = createLogger("management", config.LOG_LEVEL);
const telemetry = startTelemetry("management");

await runService({
  name: "management",
  logger,
  telemetry,
  start: async () => {
    const prisma = createPrisma(config.DATABASE_URL);
    const redis = new Redis(config.REDIS_URL, {
      keyPrefix: config.REDIS_KEY_PREFIX,
      maxRetriesPerRequest: 2,
    });
    redis.on("error", () => {});
    const bus = createServiceBus(config, "management", logger);
    const relay = new OutboxRelay(prisma, bus, { pollMs: config.OUTBOX_POLL_MS, logger });
    const app = createManagementApp({
      prisma,
      records: new RedirectRecords(redis, logger),
      logger,
      internalToken: config.INTERNAL_TOKEN,
      baseUrl: config.PUBLIC_BASE_URL,
      readiness: {
        postgres: () => prisma.$queryRaw`SELECT 1`,
        redis: () => redis.ping(),
        bus: () => bus.ping(),
      },
      onEventsWritten: () => relay.wake(),
    });
    const server = createServer(app);
    await listen(server, config.HOST, config.PORT);
    relay.start();
    return {
      servers: [server],
      close: async () => {
        await relay.stop();
        await bus.close();
        redis.disconnect();
        await prisma.$disconnect();
      },
    };
  },
});
