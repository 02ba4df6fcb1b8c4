// The README's runnable examples: the code blocks fenced as ```ts sdk-example.
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface Example {
  /** 1-based line of the block's fence in the README. */
  line: number;
  code: string;
}

export function readmeExamples(readme = join(import.meta.dirname, "..", "README.md")): Example[] {
  const lines = readFileSync(readme, "utf8").split("\n");
  const examples: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]?.trim() !== "```ts sdk-example") continue;
    const end = lines.indexOf("```", i + 1);
    if (end < 0) throw new Error(`README line ${i + 1}: unclosed example`);
    examples.push({ line: i + 1, code: lines.slice(i + 1, end).join("\n") });
    i = end;
  }
  return examples;
}
