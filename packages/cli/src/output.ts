// Terminal output: a sparkline of counts, aligned columns, and the context every command gets.
import type { KurzClient } from "@kurz/sdk";

const BLOCKS = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"];

/** One block per count, its height relative to the largest; a zero is a blank on the baseline. */
export function sparkline(counts: readonly number[]): string {
  const max = Math.max(0, ...counts);
  return counts
    .map((count) => (count <= 0 || max === 0 ? " " : BLOCKS[Math.min(7, Math.ceil((count / max) * 8) - 1)]))
    .join("");
}

/** Rows as columns padded to their widest cell; the last column is not padded. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) {
    for (const [i, cell] of row.entries()) widths[i] = Math.max(widths[i] ?? 0, [...cell].length);
  }
  return rows
    .map((row) =>
      row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join("  "),
    )
    .join("\n");
}

/** What a command is run with. */
export interface CommandContext {
  /** The command's own arguments (after its name and subcommand). */
  args: string[];
  /** --json: one JSON document on stdout instead of text. */
  json: boolean;
  env: NodeJS.ProcessEnv;
  /** A client on the saved profile (or KURZ_HOST / KURZ_API_KEY). */
  client(): Promise<KurzClient>;
  print(text: string): void;
  /** A question on the terminal; `secret` does not echo the answer. */
  ask(question: string, secret?: boolean): Promise<string>;
}

/** Prints `value` as JSON under --json, else the text `human` gives. */
export function emit(ctx: CommandContext, value: unknown, human: () => string): void {
  ctx.print(ctx.json ? JSON.stringify(value, null, 2) : human());
}
