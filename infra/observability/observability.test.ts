// The observability files checked with Debian's Prometheus tools: the alert rules and their unit tests
// (promtool), the scrape configurations, and the Grafana dashboard's JSON. Whether the series they
// name exist is checked against live services in tests/e2e/prometheus.test.ts.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { metricNames } from "./promql-names.ts";
import { prometheusConfig } from "./scrape-config.ts";

const dir = import.meta.dirname;
const PROMTOOL = "/usr/bin/promtool";
const promtool = (...args: string[]) => spawnSync(PROMTOOL, args, { cwd: dir, encoding: "utf8" });
const ALERTS = [
  "ServiceDown",
  "BusLagGrowing",
  "OutboxStuck",
  "ClickSpoolFilling",
  "ClicksDropped",
  "High5xxRatio",
  "DiskNearlyFull",
];

describe.skipIf(!existsSync(PROMTOOL))("alert rules (skipped: promtool is not installed)", () => {
  it("pass promtool check rules", () => {
    const out = promtool("check", "rules", "alerts.yml");
    expect(out.stderr + out.stdout).toContain(`SUCCESS: ${ALERTS.length} rules found`);
    expect(out.status).toBe(0);
  });

  it("pass their unit tests (promtool test rules)", () => {
    const out = promtool("test", "rules", "alerts.test.yml");
    expect(out.stdout + out.stderr).toContain("SUCCESS");
    expect(out.status).toBe(0);
  });

  it("each has a unit test that expects it to fire", () => {
    const rules = parse(readFileSync(join(dir, "alerts.yml"), "utf8")) as {
      groups: { rules: { alert: string }[] }[];
    };
    expect(rules.groups.flatMap((g) => g.rules.map((r) => r.alert)).sort()).toEqual([...ALERTS].sort());
    const tests = parse(readFileSync(join(dir, "alerts.test.yml"), "utf8")) as {
      tests: { alert_rule_test: { alertname: string; exp_alerts: unknown[] }[] }[];
    };
    const firing = new Set(
      tests.tests.flatMap((t) =>
        t.alert_rule_test.filter((a) => a.exp_alerts.length > 0).map((a) => a.alertname),
      ),
    );
    expect([...firing].sort()).toEqual([...ALERTS].sort());
  });

  it("the scrape configurations pass promtool check config", () => {
    expect(promtool("check", "config", "prometheus.yml").status).toBe(0);
    const scratch = mkdtempSync(join(tmpdir(), "kurz-prometheus-config-"));
    try {
      const generated = join(scratch, "prometheus.yml");
      writeFileSync(
        generated,
        prometheusConfig({
          targets: { gateway: ["127.0.0.1:9080"], redirect: ["127.0.0.1:9082", "127.0.0.1:9083"] },
          ruleFiles: [join(dir, "alerts.yml")],
        }),
      );
      const out = promtool("check", "config", generated);
      expect(out.stdout + out.stderr).toContain("is valid prometheus config file syntax");
      // The compose one names its rules where the container mounts them.
      const compose = join(scratch, "compose.yml");
      writeFileSync(
        compose,
        readFileSync(join(dir, "prometheus.compose.yml"), "utf8").replace(
          "/etc/prometheus/alerts.yml",
          join(dir, "alerts.yml"),
        ),
      );
      expect(promtool("check", "config", compose).status).toBe(0);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

describe("the Grafana dashboard", () => {
  const dashboard = JSON.parse(readFileSync(join(dir, "grafana-dashboard.json"), "utf8")) as {
    uid: string;
    panels: { id: number; title: string; targets: { expr: string }[] }[];
  };

  it("is a dashboard whose every panel queries Prometheus", () => {
    expect(dashboard.uid).toBe("kurz-overview");
    expect(new Set(dashboard.panels.map((p) => p.id)).size).toBe(dashboard.panels.length);
    for (const panel of dashboard.panels) {
      expect(panel.targets.length, panel.title).toBeGreaterThan(0);
      for (const t of panel.targets) expect(metricNames(t.expr).length, t.expr).toBeGreaterThan(0);
    }
  });
});

describe("metricNames", () => {
  it("finds the series an expression reads, not its functions, labels or operators", () => {
    expect(
      metricNames(
        'sum by (job) (rate(http_request_duration_seconds_count{status="5xx"}[5m])) / sum by (job) (rate(x_total[5m])) and on (a) up',
      ).sort(),
    ).toEqual(["http_request_duration_seconds_count", "up", "x_total"]);
    expect(metricNames("histogram_quantile(0.95, sum by (le) (rate(h_bucket[5m])))")).toEqual(["h_bucket"]);
  });
});
