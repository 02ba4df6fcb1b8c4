// `./kurz import --account a@example.com FILE [--format auto|csv|bitly|shlink|kutt|yourls] [--fetch-titles]
//  [--domain HOST] [--rename-reserved PREFIX]`
// runs the import in this process against the database, with a progress bar on stderr, instead of
// leaving it to a running management (which may not be up). Instead of FILE, `--from-kutt URL
// --kutt-key KEY` or `--from-yourls URL --signature SIG` read a running peer's links through its API
// (fetch-peer-export.ts) and import them as the same peer's saved export would be; the key and the
// signature may come from KUTT_API_KEY and YOURLS_SIGNATURE instead, to keep them out of `ps`. The job is created already held by this
// process, so a running management's worker does not take it while it is going; if this process dies,
// the job's lease expires and a running management resumes it. The last stdout line is the job as JSON.
import { readFileSync, statSync } from "node:fs";
import { parseArgs } from "node:util";
import { CreateImportQuery, IMPORT_MAX_BYTES } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { z } from "zod";
import { accountNamed, accountOption } from "../accounts/account-by-email.ts";
import { connectCliRedis } from "../cli-redis.ts";
import type { ManagementConfig } from "../config.ts";
import { retiredCodeGraceMs } from "../links/retired-codes.ts";
import { RedirectRecords } from "../projections/link-records.ts";
import { titleFetcherFrom } from "../titles/title-fetcher.ts";
import { createImportJob } from "./create-import-job.ts";
import { fetchKuttExport, fetchYourlsExport } from "./fetch-peer-export.ts";
import { getImportJob } from "./get-import-job.ts";
import { toImportJson } from "./import-jobs.ts";
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

/** What to import: a file, or the links read from a running Kutt or YOURLS. */
async function importSource(
  values: Record<string, string | boolean | undefined>,
  file: string | undefined,
  format: string,
): Promise<{ content: Buffer; filename: string; format: string }> {
  const fromKutt = values["from-kutt"] as string | undefined;
  const fromYourls = values["from-yourls"] as string | undefined;
  if ([file, fromKutt, fromYourls].filter((s) => s !== undefined).length !== 1) {
    throw new Error("give one of: a FILE, --from-kutt URL or --from-yourls URL");
  }
  const progress = (peer: string) => (read: number, total: number) =>
    console.error(`${peer}: read ${read} of ${total} links`);
  if (fromKutt !== undefined) {
    const key = (values["kutt-key"] as string | undefined) ?? process.env.KUTT_API_KEY;
    if (!key) throw new Error("--from-kutt needs Kutt's API key: --kutt-key KEY or KUTT_API_KEY");
    const content = await fetchKuttExport(fromKutt, key, { onPage: progress("Kutt") });
    return { content, filename: `kutt-${new URL(fromKutt).host}.json`, format: "kutt" };
  }
  if (fromYourls !== undefined) {
    const signature = (values.signature as string | undefined) ?? process.env.YOURLS_SIGNATURE;
    const content = await fetchYourlsExport(fromYourls, signature, { onPage: progress("YOURLS") });
    return { content, filename: `yourls-${new URL(fromYourls).host}.json`, format: "yourls" };
  }
  const path = file as string;
  if (statSync(path).size > IMPORT_MAX_BYTES) {
    throw new Error(`${path} is larger than the ${IMPORT_MAX_BYTES / 1024 / 1024} MiB an import takes`);
  }
  return { content: readFileSync(path), filename: path.split("/").pop() ?? path, format };
}

export async function importCommand(argv: string[], prisma: PrismaClient, config: ManagementConfig) {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      account: { type: "string" },
      format: { type: "string", default: "auto" },
      "fetch-titles": { type: "boolean", default: false },
      "from-kutt": { type: "string" },
      "kutt-key": { type: "string" },
      "from-yourls": { type: "string" },
      signature: { type: "string" },
      domain: { type: "string" },
      "rename-reserved": { type: "string" },
    },
    allowPositionals: true,
    strict: true,
  });
  const input = z
    .object({
      account: accountOption(),
      file: z.string().optional(),
      format: CreateImportQuery.shape.format.unwrap(),
      domain: CreateImportQuery.shape.domain,
      renameReserved: CreateImportQuery.shape.rename_reserved,
    })
    .parse({
      account: values.account,
      file: positionals[0],
      format: values.format,
      domain: values.domain,
      renameReserved: values["rename-reserved"],
    });
  // The account is checked before a peer is asked for anything.
  const account = await accountNamed(prisma, input.account);

  const source = await importSource(values, input.file, input.format);
  const { redis, records } = await cliRedirectRecords(config);
  let job: Awaited<ReturnType<typeof createImportJob>>["job"];
  try {
    const created = await createImportJob(
      prisma,
      account.id,
      source.content,
      {
        format: source.format as typeof input.format,
        fetch_titles: values["fetch-titles"],
        filename: source.filename,
        domain: input.domain,
        rename_reserved: input.renameReserved,
      },
      { claimedForMs: config.IMPORT_LEASE_MS },
    ).catch((err: unknown) => {
      // The API's 400 for an unreadable file, as a plain message.
      throw new Error((err as Error).message);
    });
    job = created.job;
    if (created.reused || job.content === null) {
      console.error(
        `This file is being imported already (job ${job.id}); see GET /api/v1/imports/${job.id}.`,
      );
    } else {
      const titles = titleFetcherFrom(config);
      const hashes = new PasswordHashPool(config.IMPORT_HASH_THREADS);
      const progress = progressPrinter(process.stderr);
      progress({ processed: job.processed, total: job.total });
      try {
        await runImportJob(
          {
            prisma,
            records,
            titles,
            hashes,
            // The operator's job has no budget (its title_budget is null): nothing is ever charged.
            chargeTitles: async () => 0,
            // Events wait in the outbox for management's relay.
            onEventsWritten: () => {},
            retiredCodeGraceMs: retiredCodeGraceMs(config),
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
            domainId: job.domainId,
            renameReserved: job.renameReserved,
            content: Buffer.from(job.content),
            processed: job.processed,
          },
          { onProgress: progress },
        );
      } finally {
        await titles.close();
        await hashes.close();
      }
      job = await getImportJob(prisma, account.id, job.id);
    }
  } finally {
    redis.disconnect();
  }
  const json = await toImportJson(prisma, job);
  console.error(summaryLine(json));
  console.log(JSON.stringify(json));
}

/**
 * The redirect records an import writes, in Redis asked once before anything is written: an import
 * that wrote to an unreachable one would wait out every link's retries (minutes). Without it the links
 * still go to Postgres, and the redirect makes each record from there when the link is first followed.
 */
async function cliRedirectRecords(config: ManagementConfig) {
  const { redis, reachable } = await connectCliRedis(config);
  if (!reachable) {
    console.error(
      "warning: Redis (REDIS_URL) is not reachable: the links are imported without their redirect records, which the redirect makes when each is first followed; a code deleted in the last day keeps its tombstone there until then, so import such codes with the stack running",
    );
  }
  const records = reachable
    ? new RedirectRecords(redis, { warn: (o, m) => console.error(m, o) })
    : { putMany: async () => {} };
  return { redis, records };
}

/** The job's outcome in one line, with where to look at the rows that need a person. */
function summaryLine(json: Awaited<ReturnType<typeof toImportJson>>): string {
  const c = json.counts;
  return (
    `${json.status}: ${c.created} created, ${c.skipped} skipped, ${c.needs_attention} need attention, ${c.failed} failed of ${c.total} rows` +
    (c.needs_attention > 0
      ? ` (links created inactive, to finish in the dashboard's import page: GET /api/v1/imports/${json.id}/attention)`
      : "") +
    (c.failed > 0 ? ` (refused rows: GET /api/v1/imports/${json.id}/errors)` : "")
  );
}
