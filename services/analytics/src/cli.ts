// `node services/analytics/src/cli.ts export --account-id UUID [--dimension D] [--start D] [--end D]
// [--link-id UUID]`: the account's clicks as CSV on stdout, straight from ClickHouse. Reached through
// `./kurz export --account a@example.com analytics`, which resolves the e-mail in management first.
// With embedded ClickHouse (chDB) only one process may open the data directory: stop analytics first,
// or use GET /api/v1/exports/analytics.
import { pipeline } from "node:stream/promises";
import { parseArgs } from "node:util";
import { ExportAnalyticsQuery, Uuid } from "@kurz/contracts";
import { z } from "zod";
import { analyticsConfigSchema } from "./config.ts";
import { exportAnalytics } from "./exports/analytics-export.ts";
import { openClickHouse } from "./open-clickhouse.ts";

async function main(argv: string[]) {
  const [command, ...rest] = argv;
  if (command !== "export") throw new Error("usage: cli.ts export --account-id UUID [--dimension D] ...");
  const { values } = parseArgs({
    args: rest,
    options: {
      "account-id": { type: "string" },
      dimension: { type: "string" },
      start: { type: "string" },
      end: { type: "string" },
      "link-id": { type: "string" },
    },
    strict: true,
  });
  const accountId = Uuid.parse(values["account-id"]);
  const query = ExportAnalyticsQuery.parse({
    dimension: values.dimension,
    start: values.start,
    end: values.end,
    link_id: values["link-id"],
  });
  const config = analyticsConfigSchema.parse(process.env);
  const ch = await openClickHouse(config);
  try {
    await pipeline(exportAnalytics(ch, accountId, query), process.stdout);
  } finally {
    await ch.close();
  }
}

try {
  await main(process.argv.slice(2));
} catch (err) {
  const message =
    err instanceof z.ZodError
      ? err.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")
      : String(err);
  console.error(`error: ${message}`);
  process.exit(1);
}
