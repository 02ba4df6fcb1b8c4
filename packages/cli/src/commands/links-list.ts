import { parseArgs } from "node:util";
import type { PageItem } from "@kurz/sdk";
import { CliError } from "../exit-codes.ts";
import { type CommandContext, emit, table } from "../output.ts";

/** `links ls [--search Q] [--limit N]` and `links search Q`: the newest links first, as a table. */
export async function listLinks(ctx: CommandContext, search?: string): Promise<void> {
  const { values, positionals } = parseArgs({
    args: ctx.args,
    options: { search: { type: "string" }, limit: { type: "string", default: "50" } },
    allowPositionals: search !== undefined,
    strict: true,
  });
  const query = search === undefined ? values.search : [search, ...positionals].join(" ");
  const limit = Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw CliError.usage("--limit must be a whole number above 0");
  const kurz = await ctx.client();
  const links: PageItem<"listLinks">[] = [];
  for await (const link of kurz.paginate("listLinks", {
    query: { per_page: Math.min(limit, 100), ...(query ? { search: query } : {}) },
  })) {
    links.push(link);
    if (links.length >= limit) break;
  }
  emit(ctx, links, () =>
    links.length === 0
      ? "No links."
      : table([
          ["CODE", "CLICKS", "URL", "TITLE"],
          ...links.map((l) => [l.short_code, String(l.clicks_count), l.original_url, l.title]),
        ]),
  );
}
