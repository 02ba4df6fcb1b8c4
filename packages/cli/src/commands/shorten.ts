import { parseArgs } from "node:util";
import { CliError } from "../exit-codes.ts";
import { type CommandContext, emit } from "../output.ts";

/** `shorten URL [--alias A] [--title T] [--expires DATE] [--domain HOST] [--password P]`: prints the short URL. */
export async function shorten(ctx: CommandContext): Promise<void> {
  const { values, positionals } = parseArgs({
    args: ctx.args,
    options: {
      alias: { type: "string" },
      title: { type: "string" },
      expires: { type: "string" },
      domain: { type: "string" },
      password: { type: "string" },
    },
    allowPositionals: true,
    strict: true,
  });
  const [url, ...rest] = positionals;
  if (!url || rest.length > 0)
    throw CliError.usage("usage: ./kurz shorten URL [--alias A] [--title T] [--expires DATE]");
  const kurz = await ctx.client();
  const link = await kurz.v1.createLink({
    body: {
      url,
      ...(values.alias !== undefined ? { custom_alias: values.alias } : {}),
      ...(values.title !== undefined ? { title: values.title } : {}),
      ...(values.expires !== undefined ? { expires_at: values.expires } : {}),
      ...(values.domain !== undefined ? { domain: values.domain } : {}),
      ...(values.password !== undefined ? { password: values.password } : {}),
    },
  });
  emit(ctx, link, () => link.short_url);
}
