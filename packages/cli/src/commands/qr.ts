import { writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { CliError } from "../exit-codes.ts";
import { type CommandContext, emit } from "../output.ts";

/** `qr CODE --out FILE [--size N] [--format png|svg]`: the API's QR image of the short URL, to a file. */
export async function qr(ctx: CommandContext): Promise<void> {
  const { values, positionals } = parseArgs({
    args: ctx.args,
    options: { out: { type: "string" }, size: { type: "string" }, format: { type: "string" } },
    allowPositionals: true,
    strict: true,
  });
  const [code, ...rest] = positionals;
  if (!code || rest.length > 0 || !values.out)
    throw CliError.usage("usage: ./kurz qr CODE --out FILE [--size N] [--format png|svg]");
  const format = values.format ?? (values.out.toLowerCase().endsWith(".svg") ? "svg" : "png");
  if (format !== "png" && format !== "svg") throw CliError.usage("--format is png or svg");
  const kurz = await ctx.client();
  const image = await kurz.v1.getQr({
    params: { short_code: code },
    query: { format, ...(values.size !== undefined ? { size: values.size } : {}) },
  });
  await writeFile(values.out, image);
  emit(
    ctx,
    { file: values.out, format, bytes: image.length },
    () => `Wrote ${values.out} (${format}, ${image.length} bytes)`,
  );
}
