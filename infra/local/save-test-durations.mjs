// Writes packages/testing/test-durations.json from vitest's results caches of the last whole
// `./kurz test` (every lane's): each file's measured duration, which the sequencer orders a fresh
// clone's run by (packages/testing/src/sequencer.ts). Run it after a whole run when files were added
// or their durations changed much: `node infra/local/save-test-durations.mjs`.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "../..");
const caches = [];
const visit = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) visit(path);
    else if (entry.name === "results.json" && path.includes(`${join("vitest", "")}`)) caches.push(path);
  }
};
visit(join(root, "node_modules", ".vite"));
if (caches.length === 0) throw new Error("no vitest results cache: run ./kurz test first");

const durations = {};
for (const cache of caches.sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs)) {
  for (const [key, result] of JSON.parse(readFileSync(cache, "utf8")).results) {
    if (typeof result?.duration === "number" && !result.failed)
      durations[key] = Math.round(result.duration / 100) * 100;
  }
}
const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(join(root, "packages/testing/test-durations.json"), `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`${Object.keys(sorted).length} files' durations from ${caches.length} caches`);
