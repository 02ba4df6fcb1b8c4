// Times variants in turn (each round runs every variant once), after 3 warm-up calls of each, so a slow
// spell of the shared host weighs on all of them alike; prints p50/p90/p99 per variant as a table.
// Shared by the analytics range profiles.
export type Variant = [name: string, run: () => Promise<unknown>];

export async function printInterleaved(variants: Variant[], rounds: number): Promise<void> {
  for (const [, run] of variants) for (let i = 0; i < 3; i++) await run();
  const samples = variants.map(() => [] as number[]);
  for (let i = 0; i < rounds; i++)
    for (const [v, [, run]] of variants.entries()) {
      const t = performance.now();
      await run();
      samples[v]!.push(performance.now() - t);
    }
  const pct = (s: number[], p: number) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
  console.log("| variant | p50 | p90 | p99 |\n|---|---|---|---|");
  for (const [v, [name]] of variants.entries()) {
    const s = samples[v]!.sort((a, b) => a - b);
    console.log(
      `| ${name} | ${pct(s, 50).toFixed(1)} ms | ${pct(s, 90).toFixed(1)} ms | ${pct(s, 99).toFixed(1)} ms |`,
    );
  }
}
