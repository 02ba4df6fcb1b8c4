import { parseArgs } from "node:util";
import { createKurzClient } from "@kurz/sdk";
import { CliError, EXIT } from "../exit-codes.ts";
import { type CommandContext, emit } from "../output.ts";
import { profilePath, readProfile, saveProfile } from "../profile.ts";

/** The host `./kurz up` serves on, offered when no profile names one. */
const LOCAL_HOST = "http://127.0.0.1:8080";

/**
 * `login [--host URL] [--key KEY]`: asks for what is not given, checks the key against the API (a
 * refused key is not saved: exit 3), then saves the profile (mode 0600).
 */
export async function login(ctx: CommandContext): Promise<void> {
  const { values, positionals } = parseArgs({
    args: ctx.args,
    options: { host: { type: "string" }, key: { type: "string" } },
    strict: true,
  });
  if (positionals.length > 0) throw CliError.usage(`login takes no arguments (got ${positionals.join(" ")})`);
  const path = profilePath(ctx.env);
  const saved = await readProfile(path).catch(() => null);
  const offered = saved?.host ?? LOCAL_HOST;
  const host = (values.host ?? ((await ctx.ask(`Host [${offered}]: `)) || offered)).replace(/\/+$/, "");
  if (!/^https?:\/\/[^/]+/.test(host))
    throw CliError.usage(`--host must be an http(s) URL, e.g. ${LOCAL_HOST}`);
  const key = (values.key ?? (await ctx.ask("API key: ", true))).trim();
  if (!key) throw new CliError("No API key given", EXIT.auth, "NO_KEY");
  const account = await createKurzClient({ baseUrl: host, apiKey: key }).v1.getAccount();
  await saveProfile(path, { host, key });
  emit(
    ctx,
    { host, email: account.email, profile: path },
    () => `Logged in to ${host} as ${account.email} (saved in ${path})`,
  );
}
