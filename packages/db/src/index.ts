export { parseDatabaseUrl } from "./connection-url.ts";
export { createPrisma, poolOf } from "./create-prisma.ts";
export { dropDatabase, ensureDatabase } from "./database-admin.ts";
export {
  isDatabaseUnavailable,
  isForeignKeyViolation,
  isRecordMissing,
  isUniqueViolation,
  sqlStateOf,
} from "./errors.ts";
export type {
  Account,
  ApiKey,
  Campaign,
  CampaignLink,
  Channel,
  ChannelLink,
  Domain,
  Image,
  ImportJob,
  ImportRowError,
  Invitation,
  Link,
  Membership,
  OutboxEvent,
  Overlay,
  OverlaySubmission,
  Passkey,
  Session,
  SsoConfig,
  User,
  UserIdentity,
  UtmTemplate,
  WebhookDelivery,
  WebhookEndpoint,
} from "./generated/prisma/client.ts";
export { Prisma, PrismaClient } from "./generated/prisma/client.ts";
export { MIGRATIONS_DIR, type MigrateOptions, migrateDatabase } from "./migrate-database.ts";
export { SQL_DEFINITIONS_DIR } from "./sql-definitions.ts";
