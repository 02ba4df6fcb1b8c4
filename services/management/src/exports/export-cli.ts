// `./kurz export --account a@example.com links [--format csv|json] [--out FILE]` streams the account's
// links from the database to a file or stdout. `... analytics [--dimension D] [--start D] [--end D]`
// hands over to the analytics service's CLI (clicks are analytics' data), with the account's id.
import { spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ExportLinksFormat } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { z } from "zod";
import { findAccountByEmail, isWorkspaceId } from "../accounts/account-by-email.ts";
import type { ManagementConfig } from "../config.ts";
import { exportLinks } from "./links-export.ts";

export async function exportCommand(argv: string[], prisma: PrismaClient, config: ManagementConfig) {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      account: { type: "string" },
      format: { type: "string", default: "csv" },
      out: { type: "string" },
      dimension: { type: "string" },
      start: { type: "string" },
      end: { type: "string" },
      "link-id": { type: "string" },
    },
    allowPositionals: true,
    strict: true,
  });
  const input = z
    .object({
      account: z
        .string("--account is required")
        .refine(
          (v) => isWorkspaceId(v) || z.email().safeParse(v).success,
          "--account must be the workspace's id or its e-mail address",
        ),
      what: z.enum(["links", "analytics"], "say what to export: links or analytics"),
    })
    .parse({ account: values.account, what: positionals[0] });
  const account = await findAccountByEmail(prisma, input.account);
  if (!account) throw new Error(`no workspace ${input.account}`);
  const out = values.out ? createWriteStream(values.out) : process.stdout;

  if (input.what === "links") {
    const format = ExportLinksFormat.parse(values.format);
    await pipeline(exportLinks(prisma, account.id, config.PUBLIC_BASE_URL, format), out);
    return;
  }
  const args = ["--account-id", account.id];
  for (const name of ["dimension", "start", "end", "link-id"] as const) {
    if (values[name] !== undefined) args.push(`--${name}`, values[name]);
  }
  // By import.meta.url, which the bundle keeps pointing at this source file (infra/build/bundle.ts),
  // where import.meta.dirname would name the bundle's directory.
  const cli = fileURLToPath(new URL("../../../analytics/src/cli.ts", import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", cli, "export", ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const [code] = await Promise.all([
    new Promise<number | null>((done) => child.on("close", done)),
    pipeline(child.stdout, out),
  ]);
  if (code !== 0) throw new Error("the analytics export failed (see above)");
}
