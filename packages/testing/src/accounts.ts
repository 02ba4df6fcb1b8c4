// What `./kurz accounts:create` does (services/management/src/cli.ts), without a process: the same
// createAccount and key limits, on one Prisma client per stack. Both stacks use it. A CLI process per
// account cost a Node start-up plus the CLI's migration check (the Prisma CLI and its schema engine):
// 7–15 s each on a loaded 2-core machine, most of a security test's time. The database is migrated
// when the stack starts; the CLI itself keeps its own tests (services/management/test/legacy-*).
//
// Relative imports on purpose, as in in-process.ts: a package dependency on a service would be a cycle.
import { createPrisma, isUniqueViolation } from "@kurz/db";
import {
  type CreatedAccount,
  createAccount,
} from "../../../services/management/src/accounts/create-account.ts";
import { managementConfigSchema } from "../../../services/management/src/config.ts";
import { keyLimitsFrom } from "../../../services/management/src/keys/api-keys.ts";

export interface AccountCreator {
  createAccount(email: string, linkLimit?: number): Promise<CreatedAccount>;
  close(): Promise<void>;
}

/** `cliEnv`: the environment the CLI would have run with (the parent's, then the stack's). */
export function accountCreator(cliEnv: NodeJS.ProcessEnv): AccountCreator {
  let prisma: ReturnType<typeof createPrisma> | undefined;
  const limits = keyLimitsFrom(
    managementConfigSchema.pick({ RATE_LIMIT_PER_MINUTE: true, RATE_LIMIT_PER_HOUR: true }).parse(cliEnv),
  );
  return {
    async createAccount(email, linkLimit) {
      // As cli.ts reads it.
      prisma ??= createPrisma(cliEnv.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/kurz");
      try {
        const created = await createAccount(prisma, {
          email,
          ...(linkLimit !== undefined ? { linkLimit } : {}),
          keyLimits: limits,
        });
        // The CLI's answer travels as JSON; the round trip keeps exactly the shape tests get from it.
        return JSON.parse(JSON.stringify(created)) as CreatedAccount;
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
}
