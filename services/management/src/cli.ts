// Admin CLI: `./kurz accounts:create --email a@example.com [--link-limit N]`,
// `./kurz overlays:create --account a@example.com --type message --name "Spring promo"`.
// `./kurz import --account a@example.com FILE`, `./kurz export --account a@example.com links|analytics`
// (docs/import-export.md).
// The last stdout line is machine-readable JSON, so scripts can take the key from it.
import { parseArgs } from "node:util";
import { OVERLAY_TYPES, toLegacyDateTime } from "@kurz/contracts";
import { createPrisma, isUniqueViolation, migrateDatabase, type PrismaClient } from "@kurz/db";
import { z } from "zod";
import { createAccount } from "./accounts.ts";
import { keyLimitsFrom } from "./api-keys.ts";
import { loadManagementConfig, type ManagementConfig, managementConfigSchema } from "./config.ts";
import { exportCommand } from "./exports/export-cli.ts";
import { importCommand } from "./imports/import-cli.ts";

const databaseUrl = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/kurz";

const commands: Record<string, (argv: string[]) => Promise<void>> = {
  "accounts:create": async (argv) => {
    const { values } = parseArgs({
      args: argv,
      options: { email: { type: "string" }, "link-limit": { type: "string" } },
      strict: true,
    });
    const input = z
      .object({
        email: z.email("--email must be an e-mail address"),
        linkLimit: z.coerce
          .number()
          .int("--link-limit must be a whole number")
          .min(1)
          .max(10_000_000)
          .optional(),
      })
      .parse({ email: values.email, linkLimit: values["link-limit"] });
    await migrateDatabase(databaseUrl);
    const prisma = createPrisma(databaseUrl);
    try {
      // The same defaults management gives keys created through the API.
      const limits = managementConfigSchema
        .pick({ RATE_LIMIT_PER_MINUTE: true, RATE_LIMIT_PER_HOUR: true })
        .parse(process.env);
      const created = await createAccount(prisma, { ...input, keyLimits: keyLimitsFrom(limits) });
      console.error("Account created. The API key is shown only once; keep it somewhere safe.");
      console.log(JSON.stringify(created));
    } catch (err) {
      if (isUniqueViolation(err, "accounts_email_key"))
        throw new Error(`an account with e-mail ${input.email} already exists`);
      throw err;
    } finally {
      await prisma.$disconnect();
    }
  },
  // CTA overlays have no dashboard yet; until they do, an operator creates them here.
  "overlays:create": async (argv) => {
    const { values } = parseArgs({
      args: argv,
      options: { account: { type: "string" }, type: { type: "string" }, name: { type: "string" } },
      strict: true,
    });
    const input = z
      .object({
        account: z.email("--account must be the account's e-mail address"),
        type: z.enum(OVERLAY_TYPES, `--type must be one of ${OVERLAY_TYPES.join(", ")}`),
        name: z.string("--name is required").trim().min(1, "--name must not be empty").max(100),
      })
      .parse(values);
    await migrateDatabase(databaseUrl);
    const prisma = createPrisma(databaseUrl);
    try {
      const account = await prisma.account.findUnique({
        where: { email: input.account.trim().toLowerCase() },
      });
      if (!account) throw new Error(`no account with e-mail ${input.account}`);
      const overlay = await prisma.overlay.create({
        data: { accountId: account.id, type: input.type, name: input.name },
      });
      console.log(
        JSON.stringify({
          id: overlay.id,
          account_id: account.id,
          type: overlay.type,
          name: overlay.name,
          date: toLegacyDateTime(overlay.createdAt),
        }),
      );
    } finally {
      await prisma.$disconnect();
    }
  },
};

/** Runs `command` with the database migrated and the service's configuration (env) loaded. */
const withDatabase =
  (command: (argv: string[], prisma: PrismaClient, config: ManagementConfig) => Promise<void>) =>
  async (argv: string[]) => {
    const config = loadManagementConfig({ DATABASE_URL: databaseUrl, ...process.env });
    await migrateDatabase(config.DATABASE_URL);
    const prisma = createPrisma(config.DATABASE_URL);
    try {
      await command(argv, prisma, config);
    } finally {
      await prisma.$disconnect();
    }
  };
commands.import = withDatabase(importCommand);
commands.export = withDatabase(exportCommand);

const [command, ...rest] = process.argv.slice(2);
const run = command ? commands[command] : undefined;
if (!run) {
  console.error(`usage: ./kurz <command>\ncommands: ${Object.keys(commands).join(", ")}`);
  process.exit(2);
}
try {
  await run(rest);
} catch (err) {
  const message =
    err instanceof z.ZodError
      ? err.issues.map((i) => i.message).join("; ")
      : err instanceof Error
        ? err.message
        : String(err);
  console.error(`error: ${message}`);
  process.exit(1);
}
