// Where an import's time goes, without the HTTP stack: `node --import tsx infra/bench/_import-profile.ts
// [rows] [batch] [refused]` (default 30000 rows, batches of 1,000; the same file as `./kurz bench
// import`; with `refused`, rows with passwords into an account with no room, as its refused-rows part). Runs
// management's worker (`runImportJob`) against a fresh migrated database with Redis for the redirect
// records, and prints the seconds of the whole run, of reading the file, and per batch (first, median,
// last). Add `--cpu-prof` to node to see where the process's own CPU goes. Run under
// `flock /tmp/bench.lock` and note the load average.
import { loadavg } from "node:os";
import { createPrisma, migrateDatabase } from "@kurz/db";
import { cleanupRedisPrefix, createTestDatabase } from "@kurz/testing";
import { Redis } from "ioredis";
import { createAccount } from "../../services/management/src/accounts/create-account.ts";
import { createImportJob } from "../../services/management/src/imports/create-import-job.ts";
import { claimImportJob, runImportJob } from "../../services/management/src/imports/import-worker.ts";
import { RedirectRecords } from "../../services/management/src/projections/link-records.ts";
import { hashPassword } from "../../services/management/src/security/passwords.ts";
import { csvOf, passwordCsv } from "./import.ts";

const rows = Number(process.argv[2] ?? 30_000);
const batchSize = Number(process.argv[3] ?? 1_000);
const run = Date.now().toString(36);
const refused = process.argv[4] === "refused";
const file = Buffer.from(refused ? passwordCsv(rows, "profile") : csvOf(rows));

const db = await createTestDatabase("import_profile", { migrate: (url) => migrateDatabase(url) });
// LOG_SQL=1: every statement's duration goes to the server's log, under this database's name.
if (process.env.LOG_SQL === "1") {
  const admin = createPrisma(db.url);
  await admin.$executeRawUnsafe(`ALTER DATABASE "${db.name}" SET log_min_duration_statement = 0`);
  await admin.$disconnect();
  console.error(`statements logged under ${db.name}`);
}
const prisma = createPrisma(db.url);
const redis = new Redis("redis://127.0.0.1:6379", { keyPrefix: `import-profile-${run}:` });
try {
  const account = await createAccount(prisma, {
    email: `profile-${run}@example.com`,
    linkLimit: refused ? 0 : rows + 10,
    keyLimits: { perMinute: 1000, perHour: 10000 },
  });
  const t0 = performance.now();
  const { job } = await createImportJob(prisma, account.account_id, file, { format: "auto" });
  const tUpload = performance.now();
  const claimed = await claimImportJob(prisma, 60_000);
  if (!claimed || claimed.id !== job.id) throw new Error("could not claim the job");
  const batches: number[] = [];
  let last = performance.now();
  const deps = {
    prisma,
    records: new RedirectRecords(redis, console),
    titles: { titleFor: async () => "unused" },
    chargeTitles: async () => 0,
    hashes: { hash: (password: string) => hashPassword(password) },
    onEventsWritten: () => {},
    retiredCodeGraceMs: 30 * 86_400_000,
    logger: console,
    batchSize,
    leaseMs: 60_000,
    pollMs: 1000,
  };
  const tRun = performance.now();
  await runImportJob(deps, claimed, {
    onProgress: () => {
      const now = performance.now();
      batches.push(now - last);
      last = now;
    },
  });
  const end = performance.now();
  const sorted = [...batches].sort((a, b) => a - b);
  const ms = (n: number | undefined) => `${(n ?? 0).toFixed(0)} ms`;
  console.log(
    JSON.stringify(
      {
        rows,
        batchSize,
        seconds: ((end - t0) / 1000).toFixed(2),
        rowsPerSecond: Math.round(rows / ((end - t0) / 1000)),
        createJob: ms(tUpload - t0),
        claim: ms(tRun - tUpload),
        batches: batches.length,
        firstBatch: ms(batches[0]),
        medianBatch: ms(sorted[Math.floor(sorted.length / 2)]),
        lastBatch: ms(batches.at(-1)),
        load: loadavg().map((l) => l.toFixed(2)),
      },
      null,
      2,
    ),
  );
} finally {
  redis.disconnect();
  await cleanupRedisPrefix("redis://127.0.0.1:6379", `import-profile-${run}:`);
  await prisma.$disconnect();
  await db.drop();
}
