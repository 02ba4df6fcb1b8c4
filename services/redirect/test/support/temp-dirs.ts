// Temporary directories for the tests of one file, each removed after the test that made it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";

/** Registers the cleanup; the returned function makes a directory named after `label`. */
export function useTempDirs(label: string): () => string {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), `kurz-${label}-`));
    dirs.push(dir);
    return dir;
  };
}
