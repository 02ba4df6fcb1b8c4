// `./kurz bench [name…]`: runs the benchmarks in infra/bench/ (all of them, or the named ones) and
// prints their results as Markdown, ready for docs/benchmarks.md.
import { readdirSync } from "node:fs";
import { basename, resolve } from "node:path";

export interface BenchModule {
  /** One line saying what is measured. */
  description: string;
  /** Runs the benchmark and returns a Markdown section (tables, figures, the command used). */
  run(args: string[]): Promise<string>;
}

const dir = resolve(import.meta.dirname, "../bench");
const available = readdirSync(dir)
  .filter((f) => f.endsWith(".ts") && !f.startsWith("_"))
  .map((f) => basename(f, ".ts"))
  .sort();
const [first, ...rest] = process.argv.slice(2);
const selected = first ? first.split(",") : available;
const unknown = selected.filter((n) => !available.includes(n));
if (unknown.length > 0 || available.length === 0) {
  console.error(
    `unknown benchmark ${unknown.join(", ")}; available: ${available.join(", ") || "(none yet)"}`,
  );
  process.exit(2);
}
for (const name of selected) {
  const mod = (await import(resolve(dir, `${name}.ts`))) as BenchModule;
  console.error(`== ${name}: ${mod.description}`);
  console.log(await mod.run(rest));
}
process.exit(0);
