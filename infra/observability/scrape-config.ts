// Prometheus's configuration for a stack whose operational listeners are known only when it starts
// (`./kurz up --observability` on any base port or scale, the tests' stacks on free ports): one job per
// service, each instance's OPS_HOST:OPS_PORT a target, and the alert rules. prometheus.yml beside this
// file is the same for `./kurz up`'s default ports; prometheus.compose.yml is the compose network's.

export interface PrometheusConfigOptions {
  /** Per service (the job), its instances' operational listeners as host:port. */
  targets: Record<string, readonly string[]>;
  /** Absolute paths of rule files (alerts.yml). */
  ruleFiles?: readonly string[];
  /** Default 15s (Prometheus's own default is 1m; a stack on one machine can afford more). */
  scrapeInterval?: string;
}

export function prometheusConfig(options: PrometheusConfigOptions): string {
  const interval = options.scrapeInterval ?? "15s";
  const lines = ["global:", `  scrape_interval: ${interval}`, `  evaluation_interval: ${interval}`];
  if (options.ruleFiles && options.ruleFiles.length > 0) {
    lines.push("rule_files:", ...options.ruleFiles.map((f) => `  - ${JSON.stringify(f)}`));
  }
  lines.push("scrape_configs:");
  for (const [job, targets] of Object.entries(options.targets)) {
    lines.push(
      `  - job_name: ${JSON.stringify(job)}`,
      "    metrics_path: /metrics",
      "    static_configs:",
      `      - targets: [${targets.map((t) => JSON.stringify(t)).join(", ")}]`,
    );
  }
  return `${lines.join("\n")}\n`;
}
