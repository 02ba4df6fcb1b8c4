// Names a template after what it is made from (migrated-database.ts, migrated-chdb.ts): a new template
// whenever a migration is added, renamed or edited.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** A short hash of every file under `dir` (paths relative to it, and contents), then of `extra`. */
export function filesKey(dir: string, ...extra: string[]): string {
  const hash = createHash("sha256");
  const visit = (sub: string) => {
    for (const entry of readdirSync(join(dir, sub), { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const path = join(sub, entry.name);
      if (entry.isDirectory()) visit(path);
      else
        hash
          .update(`${path}\0`)
          .update(readFileSync(join(dir, path)))
          .update("\0");
    }
  };
  visit("");
  for (const part of extra) hash.update(`${part}\0`);
  return hash.digest("hex").slice(0, 16);
}
