// `./kurz import --account a@example.com FILE [--format auto|csv|bitly|shlink|kutt|yourls] [--fetch-titles]`
// runs the import in this process against the database, with a progress bar on stderr, instead of
// leaving it to a running management (which may not be up). The job is created already held by this
// process, so a running management's worker does not take it while it is going; if this process dies,
// the job's lease expires and a running management resumes it. The last stdout line is the job as JSON.
import { readFileSync, statSync } from "node:fs";
import { parseArgs } from "node:util";
import { CreateImportQuery, IMPORT_MAX_BYTES } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { Redis } from "ioredis";
import { z } from "zod";
import type { ManagementConfig } from "../config.ts";
import { serversResolve } from "../public-address-guard.ts";
import { RedirectRecords } from "../redirect-records.ts";
import { TitleFetcher } from "../title-fetcher.ts";
import { createImportJob, getImportJob, toImportJson } from "./import-jobs.ts";
import { runImportJob } from "./import-worker.ts";
import { PasswordHashPool } from "./password-hash-pool.ts";

const BAR_WIDTH = 30;

/** `[#####.....]  45%  45000/100000 rows` on a terminal; a line per 10% otherwise. */
function progressPrinter(stream: NodeJS.WriteStream) {
  let lastDecile = -1;
  return ({ processed, total }: { processed: number; total: number }) => {
    const share = total === 0 ? 1 : processed / total;
    if (stream.isTTY) {
      const filled = Math.round(share * BAR_WIDTH);
      stream.write(
        `\r[${"#".repeat(filled)}${".".repeat(BAR_WIDTH - filled)}] ${String(Math.floor(share * 100)).padStart(3)}%  ${processed}/${total} rows`,
      );
      if (processed >= total) stream.write("\n");
    } else if (Math.floor(share * 10) > lastDecile) {
      lastDecile = Math.floor(share * 10);
      stream.write(`${Math.floor(share * 100)}%  ${processed}/${total} rows\n`);
    }
  };
}

export async function importCommand(argv: string[], prisma: PrismaClient, config: ManagementConfig) {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      account: { type: "string" },
      format: { type: "string", default: "auto" },
      "fetch-titles": { type: "boolean", default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  const input = z
    .object({
      account: z.email("--account must be the account's e-mail address"),
      file: z.string("give the file to import"),
      format: CreateImportQuery.shape.format.unwrap(),
    })
    .parse({ account: values.account, file: positionals[0], format: values.format });
  if (statSync(input.file).size > IMPORT_MAX_BYTES) {
    throw new Error(`${input.file} is larger than the ${IMPORT_MAX_BYTES / 1024 / 1024} MiB an import takes`);
  }
  const account = await prisma.account.findUnique({ where: { email: input.account.trim().toLowerCase() } });
  if (!account) throw new Error(`no account with e-mail ${input.account}`);

  const file = readFileSync(input.file);
  let { job, reused } = await createImportJob(
    prisma,
    account.id,
    file,
    { format: input.format, fetch_titles: values["fetch-titles"], filename: input.file.split("/").pop() },
    { claimedForMs: config.IMPORT_LEASE_MS },
  ).catch((err: unknown) => {
    // The API's 400 for an unreadable file, as a plain message.
    throw new Error((err as Error).message);
  });
  if (reused || job.content === null) {
    console.error(`This file is being imported already (job ${job.id}); see GET /api/v1/imports/${job.id}.`);
  } else {
    const redis = new Redis(config.REDIS_URL, {
      keyPrefix: config.REDIS_KEY_PREFIX,
      maxRetriesPerRequest: 2,
    });
    redis.on("error", () => {});
    const titles = new TitleFetcher({
      enabled: config.TITLE_FETCH_ENABLED,
      allowHosts: config.TITLE_FETCH_ALLOW_HOSTS,
      perHostPerMinute: config.TITLE_FETCH_HOST_PER_MINUTE,
      ...(config.TITLE_FETCH_DNS_SERVERS.length > 0
        ? { resolve: serversResolve(config.TITLE_FETCH_DNS_SERVERS) }
        : {}),
      ...(config.TITLE_FETCH_DNS_SERVERS.length > 0
        ? { resolve: serversResolve(config.TITLE_FETCH_DNS_SERVERS) }
        : {}),
    });
    const hashes = new PasswordHashPool(config.IMPORT_HASH_THREADS);
    const progress = progressPrinter(process.stderr);
    progress({ processed: job.processed, total: job.total });
    try {
      await runImportJob(
        {
          prisma,
          records: new RedirectRecords(redis, { warn: (o, m) => console.error(m, o) }),
          titles,
          hashes,
          // The operator's job has no budget (its title_budget is null): nothing is ever charged.
          chargeTitles: async () => 0,
          // Events wait in the outbox for management's relay.
          onEventsWritten: () => {},
          retiredCodeGraceMs: config.RETIRED_CODE_DAYS * 86_400_000,
          logger: { info: () => {}, error: (o, m) => console.error(m, o) },
          batchSize: config.IMPORT_BATCH_SIZE,
          leaseMs: config.IMPORT_LEASE_MS,
          pollMs: config.IMPORT_POLL_MS,
        },
        {
          id: job.id,
          accountId: account.id,
          format: job.format as never,
          fetchTitles: job.fetchTitles,
          titleBudget: job.titleBudget,
          content: Buffer.from(job.content),
          processed: job.processed,
        },
        { onProgress: progress },
      );
    } finally {
      await titles.close();
      await hashes.close();
      redis.disconnect();
    }
    job = await getImportJob(prisma, account.id, job.id);
  }
  const json = await toImportJson(prisma, job);
  const c = json.counts;
  console.error(
    `${json.status}: ${c.created} created, ${c.skipped} skipped, ${c.needs_attention} need attention, ${c.failed} failed of ${c.total} rows` +
      (c.needs_attention > 0
        ? ` (links created inactive, to finish in the dashboard's import page: GET /api/v1/imports/${json.id}/attention)`
        : "") +
      (c.failed > 0 ? ` (refused rows: GET /api/v1/imports/${json.id}/errors)` : ""),
  );
  console.log(JSON.stringify(json));
}
