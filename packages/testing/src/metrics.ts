// Reading a service's Prometheus exposition in tests: the samples of one metric, by their labels.

export interface Sample {
  labels: Record<string, string>;
  value: number;
}

/** Parses Prometheus text format 0.0.4 (the samples; comments skipped). */
export function parseMetrics(text: string): Map<string, Sample[]> {
  const out = new Map<string, Sample[]>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!m) throw new Error(`not a Prometheus sample: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1]!] = l[2]!;
    const samples = out.get(m[1]!) ?? [];
    samples.push({ labels, value: Number(m[3]) });
    out.set(m[1]!, samples);
  }
  return out;
}

/** GETs `${opsUrl}/metrics`, checks it is Prometheus text, and parses it. */
export async function scrapeMetrics(
  opsUrl: string,
): Promise<{ samples: Map<string, Sample[]>; text: string }> {
  const res = await fetch(`${opsUrl}/metrics`);
  if (res.status !== 200) throw new Error(`${opsUrl}/metrics answered ${res.status}`);
  const type = res.headers.get("content-type") ?? "";
  if (!type.startsWith("text/plain")) throw new Error(`${opsUrl}/metrics is ${type}, not Prometheus text`);
  const text = await res.text();
  return { samples: parseMetrics(text), text };
}

/** The value of `name`'s sample whose labels include `labels` (summed over the others), or undefined. */
export function sampleValue(
  samples: Map<string, Sample[]>,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const matching = (samples.get(name) ?? []).filter((s) =>
    Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  return matching.length === 0 ? undefined : matching.reduce((a, s) => a + s.value, 0);
}
