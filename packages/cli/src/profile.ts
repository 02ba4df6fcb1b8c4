// The saved profile: the host and API key `./kurz login` stores, in
// ${XDG_CONFIG_HOME:-~/.config}/kurz/profile.json, readable by its owner only (mode 0600, the folder
// 0700). A profile others may read is refused, as ssh refuses such a private key: the key is a secret.
// KURZ_HOST and KURZ_API_KEY override what it holds.
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { CliError, EXIT } from "./exit-codes.ts";

export interface Profile {
  host: string;
  key: string;
}

export function profilePath(env: NodeJS.ProcessEnv = process.env): string {
  const config = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
  return join(config, "kurz", "profile.json");
}

/** The saved profile, or null when there is none; throws when it is unsafe or unreadable. */
export async function readProfile(path: string): Promise<Partial<Profile> | null> {
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
  if (!info) return null;
  if ((info.mode & 0o077) !== 0) {
    throw new CliError(
      `${path} may be read by other users (mode ${(info.mode & 0o777).toString(8)}); run: chmod 600 ${path}`,
      EXIT.auth,
      "UNSAFE_PROFILE",
    );
  }
  try {
    const parsed = JSON.parse(await readFile(path, "utf8")) as Partial<Profile>;
    return {
      ...(typeof parsed.host === "string" ? { host: parsed.host } : {}),
      ...(typeof parsed.key === "string" ? { key: parsed.key } : {}),
    };
  } catch {
    throw new CliError(`${path} is not a profile (run ./kurz login again)`, EXIT.auth, "BAD_PROFILE");
  }
}

/**
 * Writes the profile readable by its owner only, whatever modes the files had before: a new file made
 * 0600 takes the place of the old one, so the key is never in a file others may read.
 */
export async function saveProfile(path: string, profile: Profile): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const fresh = `${path}.${process.pid}.tmp`;
  await rm(fresh, { force: true });
  await writeFile(fresh, `${JSON.stringify(profile, null, 2)}\n`, { mode: 0o600, flag: "wx" });
  await chmod(fresh, 0o600);
  await rename(fresh, path);
}

/** The host and key a command uses: the environment's, else the profile's. */
export async function resolveProfile(env: NodeJS.ProcessEnv = process.env): Promise<Profile> {
  const path = profilePath(env);
  const saved = env.KURZ_HOST && env.KURZ_API_KEY ? null : await readProfile(path);
  const host = env.KURZ_HOST || saved?.host;
  const key = env.KURZ_API_KEY || saved?.key;
  if (!host || !key) {
    throw new CliError(
      `Not logged in: run ./kurz login (or set KURZ_HOST and KURZ_API_KEY)`,
      EXIT.auth,
      "NO_PROFILE",
    );
  }
  return { host, key };
}
