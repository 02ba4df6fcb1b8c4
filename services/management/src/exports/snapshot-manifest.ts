// The snapshot's manifest.json: the SHA-256 and size of every file, sorted by path, so an operator (or
// verify-snapshot.ts) can check a copy, and a refresh can tell a folder holding a previous snapshot.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { z } from "zod";

export const sha256 = (content: string | Buffer) => createHash("sha256").update(content).digest("hex");

/** The manifest: each file's SHA-256 and size, sorted by path, so an operator can check the set. */
export function manifestOf(
  files: Map<string, string>,
  meta: { format: string; generatedAt: Date; links: number },
): string {
  const list = [...files.keys()].sort().map((path) => {
    const content = files.get(path)!;
    return { path, sha256: sha256(content), bytes: Buffer.byteLength(content) };
  });
  return `${JSON.stringify(
    { format: meta.format, generated_at: meta.generatedAt.toISOString(), links: meta.links, files: list },
    null,
    2,
  )}\n`;
}

export const SnapshotManifest = z.object({
  format: z.string(),
  generated_at: z.string(),
  links: z.number(),
  files: z.array(z.object({ path: z.string(), sha256: z.string(), bytes: z.number() })),
});
export type SnapshotManifest = z.infer<typeof SnapshotManifest>;

/** Every file under `dir`, as paths relative to it, sorted. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => !d.isDirectory())
    .map((d) => relative(dir, join(d.parentPath, d.name)))
    .sort();
}

/** The manifest in `dir`, or null when there is none or it is not a snapshot's manifest. */
export function readManifest(dir: string): SnapshotManifest | null {
  const file = join(dir, "manifest.json");
  if (!existsSync(file)) return null;
  try {
    return SnapshotManifest.parse(JSON.parse(readFileSync(file, "utf8")));
  } catch {
    return null;
  }
}

/**
 * Whether `dir` holds a snapshot and nothing else: a readable manifest.json, and every file in the
 * folder listed in it (or the manifest and its signature). Such a folder may be refreshed; a folder
 * with anything else in it is someone's, and is left alone.
 */
export function holdsSnapshotOnly(dir: string): boolean {
  const manifest = readManifest(dir);
  if (manifest === null) return false;
  const listed = new Set([...manifest.files.map((f) => f.path), "manifest.json", "manifest.json.sig"]);
  return filesUnder(dir).every((path) => listed.has(path));
}
