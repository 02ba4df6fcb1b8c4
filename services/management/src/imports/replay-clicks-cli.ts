// `./kurz import clicks --account a@example.com --nginx-log FILE`: the clicks an nginx serving the
// continuity snapshot logged, replayed into analytics (replay-clicks.ts, docs/continuity.md). Published
// straight to the bus, as the redirect publishes: not through the outbox, which would keep the
// visitors' addresses in Postgres until a running management relayed them. A failed publish leaves
// nothing half-counted that a second run would count twice: a re-run publishes the same click ids.
// The last stdout line is the report as JSON.
import { statSync } from "node:fs";
import { parseArgs } from "node:util";
import type { PrismaClient } from "@kurz/db";
import { createLogger, createServiceBus } from "@kurz/service-kit";
import { z } from "zod";
import { accountNamed, accountOption } from "../accounts/account-by-email.ts";
import { connectCliRedis } from "../cli-redis.ts";
import type { ManagementConfig } from "../config.ts";
import { replayClicks } from "./replay-clicks.ts";
import { ReplayedClickLimits } from "./replayed-click-limits.ts";

export async function replayClicksCommand(argv: string[], prisma: PrismaClient, config: ManagementConfig) {
  const { values } = parseArgs({
    args: argv,
    options: { account: { type: "string" }, "nginx-log": { type: "string" } },
    strict: true,
  });
  const input = z
    .object({
      account: accountOption("--account is required: the workspace whose snapshot logged the clicks"),
      file: z.string("--nginx-log FILE is required").min(1, "--nginx-log FILE is required"),
    })
    .parse({ account: values.account, file: values["nginx-log"] });
  const stat = statSync(input.file, { throwIfNoEntry: false });
  if (!stat?.isFile()) throw new Error(`--nginx-log ${input.file} is not a readable file`);
  const account = await accountNamed(prisma, input.account);
  const bus = createServiceBus(
    config,
    "management-click-replay",
    createLogger("management", "warn", process.stderr),
  );
  // Links' click limits are counted in the redirect's Redis; without it the clicks still replay.
  const { redis, reachable } = await connectCliRedis(config);
  try {
    await bus.ping();
    const limits = reachable ? new ReplayedClickLimits(redis) : null;
    const report = await replayClicks({ prisma, bus, limits }, { accountId: account.id, file: input.file });
    console.error(
      `${report.replayed} replayed, ${report.bad} skipped (bad lines), ${report.duplicates} duplicates by request id, ` +
        `${report.notClicks} not clicks (not a redirect, or not a GET), ${report.unknown} not links of this workspace. ` +
        "A click replayed before is counted once by analytics.",
    );
    if (report.limitCounted > 0)
      console.error(`${report.limitCounted} counted against their links' click limits.`);
    if (report.limitNotCounted > 0) {
      console.error(
        `warning: Redis was not reachable, so ${report.limitNotCounted} clicks of links with a click limit (max_clicks) ` +
          "were not counted against it; replay the same log again once Redis answers (nothing is counted twice)",
      );
    }
    console.log(JSON.stringify(report));
  } finally {
    redis.disconnect();
    await bus.close();
  }
}
