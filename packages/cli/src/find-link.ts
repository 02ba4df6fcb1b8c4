import type { KurzClient } from "@kurz/sdk";
import { CliError, EXIT } from "./exit-codes.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The link a command names by its short code (or its id); NOT_FOUND (exit 4) when there is none. */
export async function findLink(kurz: KurzClient, codeOrId: string) {
  if (UUID.test(codeOrId)) return kurz.v1.getLink({ params: { id: codeOrId } });
  // The list's search matches codes among URLs and titles; only an exact code is the link.
  for await (const link of kurz.paginate("listLinks", { query: { search: codeOrId, per_page: 100 } })) {
    if (link.short_code === codeOrId) return link;
  }
  throw new CliError(`No link with the code ${codeOrId}`, EXIT.notFound, "NOT_FOUND");
}
