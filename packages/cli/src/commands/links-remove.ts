import { CliError } from "../exit-codes.ts";
import { findLink } from "../find-link.ts";
import type { CommandContext } from "../output.ts";
import { emit } from "../output.ts";

/** `links rm CODE…`: deletes each named link (and its click data); stops at the first that is missing (exit 4). */
export async function removeLinks(ctx: CommandContext): Promise<void> {
  const codes = ctx.args;
  if (codes.length === 0 || codes.some((code) => code.startsWith("-"))) {
    throw CliError.usage("usage: ./kurz links rm CODE [CODE…]");
  }
  const kurz = await ctx.client();
  const removed: { short_code: string; id: string }[] = [];
  for (const code of codes) {
    const link = await findLink(kurz, code);
    await kurz.v1.deleteLink({ params: { id: link.id } });
    removed.push({ short_code: link.short_code, id: link.id });
  }
  emit(ctx, { removed }, () => removed.map((link) => `Removed ${link.short_code}`).join("\n"));
}
