// Admin CLI: `./kurz accounts:create --email a@example.com [--link-limit N]`.
// The last stdout line is machine-readable JSON, so scripts can take the key from it.
import { parseArgs } from "node:util";
import { createPrisma, migrateDatabase } from "@kurz/db";
import { z } from "zod";
import { createAccount } from "./accounts.ts";

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
      const created = await createAccount(prisma, input);
      console.error("Account created. The API key is shown only once; keep it somewhere safe.");
      console.log(JSON.stringify(created));
    } catch (err) {
      if ((err as { code?: string }).code === "P2002")
        throw new Error(`an account with e-mail ${input.email} already exists`);
      throw err;
    } finally {
      await prisma.$disconnect();
    }
  },
};

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
