// Registers management's in-process start function with @kurz/testing, which may not import services,
// and what `./kurz accounts:create` does, which both stacks use: a setup file of every vitest project
// whose tests start stacks (vitest.stack.ts), imported by the benchmarks that start stacks. The
// service's code is loaded when a stack first needs it.
import { createLogger } from "@kurz/service-kit";
import { registerAccountCreator, registerInProcessService } from "@kurz/testing/stack-services";

registerInProcessService("management", async (env, logs) => {
  const [{ loadManagementConfig }, { startManagement }] = await Promise.all([
    import("../src/config.ts"),
    import("../src/compose.ts"),
  ]);
  const config = loadManagementConfig(env);
  const logger = createLogger("management", config.LOG_LEVEL, logs);
  return { logger, service: await startManagement(config, logger) };
});

// The CLI's createAccount and key limits, on one Prisma client per stack. A CLI process per account
// cost a Node start-up plus the CLI's migration check (the Prisma CLI and its schema engine): 7–15 s
// each on a loaded 2-core machine, most of a security test's time. The database is migrated when the
// stack starts; the CLI itself keeps its own tests (legacy-*.test.ts).
registerAccountCreator((cliEnv) => {
  let prisma: import("@kurz/db").PrismaClient | undefined;
  return {
    async createAccount(email, linkLimit) {
      const [
        { createPrisma, isUniqueViolation },
        { createAccount },
        { keyLimitsFrom },
        { managementConfigSchema },
      ] = await Promise.all([
        import("@kurz/db"),
        import("../src/accounts/create-account.ts"),
        import("../src/keys/api-keys.ts"),
        import("../src/config.ts"),
      ]);
      // As cli.ts reads them.
      const keyLimits = keyLimitsFrom(
        managementConfigSchema.pick({ RATE_LIMIT_PER_MINUTE: true, RATE_LIMIT_PER_HOUR: true }).parse(cliEnv),
      );
      prisma ??= createPrisma(cliEnv.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/kurz");
      try {
        const created = await createAccount(prisma, {
          email,
          ...(linkLimit !== undefined ? { linkLimit } : {}),
          keyLimits,
        });
        // The CLI's answer travels as JSON; the round trip keeps exactly the shape tests get from it.
        return JSON.parse(JSON.stringify(created)) as typeof created;
      } catch (err) {
        if (isUniqueViolation(err, "accounts_email_key"))
          throw new Error(`accounts:create: an account with e-mail ${email} already exists`);
        throw err;
      }
    },
    async close() {
      await prisma?.$disconnect();
    },
  };
});
