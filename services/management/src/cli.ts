// Admin CLI: `./kurz accounts:create --email a@example.com [--link-limit N]`,
// `./kurz accounts:update --email a@example.com [--link-limit N] [--rate-limit N] [--rate-limit-hour N]
// [--status pro]` (the same use case as PATCH /internal/admin/accounts),
// `./kurz overlays:create --account a@example.com --type message --name "Spring promo"`.
// `./kurz import --account a@example.com FILE` (or `--from-kutt URL --kutt-key KEY`, `--from-yourls URL
// --signature SIG`), `./kurz import clicks --account a@example.com --nginx-log FILE` (a continuity
// snapshot's access log), `./kurz export --account a@example.com links|analytics|snapshot`
// (docs/import-export.md), `./kurz snapshot:verify DIR [--pub-key FILE]` (docs/continuity.md).
// The last stdout line is machine-readable JSON, so scripts can take the key from it.
import { parseArgs } from "node:util";
import { OVERLAY_TYPES, toLegacyDateTime, UpdateAccountLimitsBody } from "@kurz/contracts";
import { createPrisma, isUniqueViolation, migrateDatabase, type PrismaClient } from "@kurz/db";
import { z } from "zod";
import { accountNamed, accountOption } from "./accounts/account-by-email.ts";
import { createAccount } from "./accounts/create-account.ts";
import { updateAccountLimits } from "./accounts/update-account-limits.ts";
import { connectCliRedis } from "./cli-redis.ts";
import { loadManagementConfig, type ManagementConfig, managementConfigSchema } from "./config.ts";
import { exportCommand, verifySnapshotCommand } from "./exports/export-cli.ts";
import { importCommand } from "./imports/import-cli.ts";
import { replayClicksCommand } from "./imports/replay-clicks-cli.ts";
import { keyLimitsFrom } from "./keys/api-keys.ts";

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
      if (isUniqueViolation(err, "users_email_key"))
        throw new Error(`an account with e-mail ${input.email} already exists`);
      throw err;
    } finally {
      await prisma.$disconnect();
    }
  },
  "accounts:update": async (argv) => {
    const { values } = parseArgs({
      args: argv,
      options: {
        email: { type: "string" },
        account: { type: "string" },
        "link-limit": { type: "string" },
        "rate-limit": { type: "string" },
        "rate-limit-hour": { type: "string" },
        status: { type: "string" },
      },
      strict: true,
    });
    const whole = (flag: string, value: string | undefined) => {
      if (value === undefined) return undefined;
      if (!/^\d{1,9}$/.test(value)) throw new Error(`${flag} must be a whole number`);
      return Number(value);
    };
    const parsed = UpdateAccountLimitsBody.safeParse({
      email: values.email,
      account_id: values.account,
      link_limit: whole("--link-limit", values["link-limit"]),
      rate_limit_per_minute: whole("--rate-limit", values["rate-limit"]),
      rate_limit_per_hour: whole("--rate-limit-hour", values["rate-limit-hour"]),
      status: values.status,
    });
    if (!parsed.success) {
      const flags: Record<string, string> = {
        email: "--email (or --account <workspace id>)",
        account_id: "--account",
        link_limit: "--link-limit",
        rate_limit_per_minute: "--rate-limit",
        rate_limit_per_hour: "--rate-limit-hour",
        status: "--status",
      };
      const said = parsed.error.issues.map((i) => {
        const field = String(i.path[0] ?? "");
        return field ? `${flags[field] ?? field}: ${i.message}` : i.message;
      });
      throw new Error(said.join("; "));
    }
    await withDatabase(async (_argv, prisma, config) => {
      // The gateway caches key records in Redis: rewriting them makes new rate limits count at once.
      const { redis, reachable } = await connectCliRedis(config);
      try {
        const { limits, cachesUpdated } = await updateAccountLimits(
          { prisma, redis: reachable ? redis : null, keyLimits: keyLimitsFrom(config) },
          parsed.data,
        );
        if (!cachesUpdated) {
          console.error(
            "warning: Redis was not reachable, so the gateway counts against the old rate limits until its cached key records expire (KEY_CACHE_TTL_SECONDS, 60 s by default)",
          );
        }
        console.log(JSON.stringify(limits));
      } finally {
        redis.disconnect();
      }
    })([]);
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
        account: accountOption(),
        type: z.enum(OVERLAY_TYPES, `--type must be one of ${OVERLAY_TYPES.join(", ")}`),
        name: z.string("--name is required").trim().min(1, "--name must not be empty").max(100),
      })
      .parse(values);
    await migrateDatabase(databaseUrl);
    const prisma = createPrisma(databaseUrl);
    try {
      const account = await accountNamed(prisma, input.account);
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
// `import clicks --nginx-log FILE` replays a snapshot's access log; any other `import` reads links.
commands.import = withDatabase((argv, prisma, config) =>
  argv[0] === "clicks"
    ? replayClicksCommand(argv.slice(1), prisma, config)
    : importCommand(argv, prisma, config),
);
commands.export = withDatabase(exportCommand);
// Reads only the folder: it checks a copy wherever it is, with no database.
commands["snapshot:verify"] = verifySnapshotCommand;

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
