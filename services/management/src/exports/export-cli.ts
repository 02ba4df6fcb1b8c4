// `./kurz export --account a@example.com links [--format csv|json] [--out FILE]` streams the account's
// links from the database to a file or stdout. `... analytics [--dimension D] [--start D] [--end D]`
// hands over to the analytics service's CLI (clicks are analytics' data), with the account's id.
// `... snapshot --format nginx|caddy|static --out DIR [--listen PORT] [--sign-key FILE]` writes the
// continuity snapshot (docs/continuity.md); `./kurz snapshot:verify DIR [--pub-key FILE]` checks a copy.
import { spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ExportLinksFormat } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { z } from "zod";
import { accountNamed, accountOption } from "../accounts/account-by-email.ts";
import type { ManagementConfig } from "../config.ts";
import { exportLinks } from "./links-export.ts";
import { exportSnapshot, SNAPSHOT_FORMATS } from "./snapshot.ts";
import { readSigningKey, readVerifyKey } from "./snapshot-signature.ts";
import { verifySnapshot } from "./verify-snapshot.ts";

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
      listen: { type: "string" },
      "sign-key": { type: "string" },
    },
    allowPositionals: true,
    strict: true,
  });
  const input = z
    .object({
      account: accountOption(),
      what: z.enum(["links", "analytics", "snapshot"], "say what to export: links, analytics or snapshot"),
    })
    .parse({ account: values.account, what: positionals[0] });
  const account = await accountNamed(prisma, input.account);
  if (input.what === "snapshot") {
    const snapshot = z
      .object({
        format: z.enum(SNAPSHOT_FORMATS, "--format must be nginx, caddy or static"),
        out: z.string("--out DIR is required").min(1, "--out DIR is required"),
        listen: z
          .string()
          .regex(/^([0-9.]+:|\[[0-9a-f:]+\]:)?\d{1,5}$/i, "--listen must be a port or address:port")
          .optional(),
        // The redirect's own setting, so the snapshot answers with the same status.
        status: z.coerce
          .number()
          .refine((n) => [301, 302, 307, 308].includes(n), "REDIRECT_STATUS must be 301, 302, 307 or 308")
          .default(302),
      })
      .parse({
        format: values.format === "csv" ? undefined : values.format,
        out: values.out,
        listen: values.listen,
        status: process.env.REDIRECT_STATUS,
      });
    // Read first: a key that is missing or of the wrong kind stops the export before anything is written.
    const signKey = values["sign-key"] !== undefined ? readSigningKey(values["sign-key"]) : undefined;
    const { links, files } = await exportSnapshot(prisma, {
      accountId: account.id,
      baseUrl: config.PUBLIC_BASE_URL,
      now: new Date(),
      ...snapshot,
      ...(signKey ? { signKey } : {}),
    });
    console.error(
      `Snapshot written to ${snapshot.out}: ${links} links, ${files} files (manifest.json lists their SHA-256${signKey ? ", manifest.json.sig signs it" : ""}).`,
    );
    console.log(
      JSON.stringify({
        out: snapshot.out,
        format: snapshot.format,
        links,
        files,
        signed: signKey !== undefined,
      }),
    );
    return;
  }
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

/** `./kurz snapshot:verify DIR [--pub-key FILE]`: exits non-zero, naming each difference, unless intact. */
export async function verifySnapshotCommand(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { "pub-key": { type: "string" } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1)
    throw new Error("give the snapshot's folder: ./kurz snapshot:verify DIR [--pub-key FILE]");
  const dir = positionals[0]!;
  const key = values["pub-key"] !== undefined ? readVerifyKey(values["pub-key"]) : undefined;
  const report = verifySnapshot(dir, key);
  for (const problem of report.problems) console.error(problem);
  console.log(JSON.stringify({ dir, ...report }));
  if (report.problems.length > 0)
    throw new Error(
      `the snapshot in ${dir} is not as exported: ${report.problems.length} difference(s), listed above`,
    );
  console.error(
    key
      ? `${dir}: ${report.files} files intact, manifest signed by the key.`
      : `${dir}: ${report.files} files intact. The signature was not checked (give --pub-key FILE).`,
  );
}
