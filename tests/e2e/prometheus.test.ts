// The real Prometheus (Debian's package) scraping a whole stack: every service's operational listener
// is an `up` target, the key series arrive, and every series the alert rules and the Grafana dashboard
// read is one the services expose. Skipped without /usr/bin/prometheus (./kurz test installs it).
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { getFreePort, printProcessOutputOnFailure, waitFor } from "@kurz/testing";
import { type Stack, startStack } from "@kurz/testing/stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { metricNames, withHistogramBases } from "../../infra/observability/promql-names.ts";
import { prometheusConfig } from "../../infra/observability/scrape-config.ts";

printProcessOutputOnFailure();

const PROMETHEUS = "/usr/bin/prometheus";
const observability = resolve(import.meta.dirname, "../../infra/observability");
const SERVICES = ["gateway", "management", "redirect", "analytics"] as const;

interface Target {
  labels: { job: string };
  health: string;
  lastError: string;
}

describe.skipIf(!existsSync(PROMETHEUS))(
  "Prometheus against a stack (skipped: prometheus is not installed)",
  () => {
    let stack: Stack;
    let prometheus: ChildProcess | undefined;
    let url: string;
    let scratch: string;
    let log = "";

    const api = async <T>(path: string): Promise<T> => {
      const res = await fetch(`${url}/api/v1/${path}`);
      const body = (await res.json()) as { status: string; data: T };
      if (body.status !== "success") throw new Error(`${path}: ${JSON.stringify(body)}`);
      return body.data;
    };
    const query = (q: string) =>
      api<{ result: { metric: Record<string, string>; value: [number, string] }[] }>(
        `query?query=${encodeURIComponent(q)}`,
      ).then((d) => d.result);

    beforeAll(async () => {
      // One failed authentication allowed a minute: the second is refused, so the refusals have a series.
      stack = await startStack({
        inProcess: true,
        serviceEnv: { gateway: { AUTH_FAILURE_LIMIT_PER_MINUTE: "1" } },
      });
      scratch = mkdtempSync(join(tmpdir(), "kurz-prometheus-"));
      const ops = {
        gateway: stack.urls.gatewayOps,
        management: stack.urls.managementOps,
        redirect: stack.urls.redirectOps,
        analytics: stack.urls.analyticsOps,
      };
      const config = join(scratch, "prometheus.yml");
      writeFileSync(
        config,
        prometheusConfig({
          targets: Object.fromEntries(SERVICES.map((s) => [s, [new URL(ops[s]).host]])),
          ruleFiles: [join(observability, "alerts.yml")],
          scrapeInterval: "1s",
        }),
      );
      const port = await getFreePort();
      url = `http://127.0.0.1:${port}`;
      prometheus = spawn(
        PROMETHEUS,
        [
          `--config.file=${config}`,
          `--storage.tsdb.path=${join(scratch, "data")}`,
          `--web.listen-address=127.0.0.1:${port}`,
          "--log.level=warn",
        ],
        { stdio: ["ignore", "pipe", "pipe"] },
      );
      prometheus.stderr?.on("data", (chunk: Buffer) => {
        log += chunk.toString();
      });
      await waitFor(async () => (await fetch(`${url}/-/ready`).catch(() => null))?.status === 200, {
        timeoutMs: 30_000,
        description: "Prometheus ready",
      });
    });

    afterAll(async () => {
      if (prometheus && prometheus.exitCode === null) {
        const exited = new Promise((r) => prometheus!.once("exit", r));
        prometheus.kill("SIGTERM");
        await exited;
      }
      if (scratch) rmSync(scratch, { recursive: true, force: true });
      await stack?.stop();
    });

    it("finds every service's operational listener up", async () => {
      let targets: Target[] = [];
      await waitFor(
        async () => {
          targets = (await api<{ activeTargets: Target[] }>("targets")).activeTargets;
          return targets.length === SERVICES.length && targets.every((t) => t.health === "up");
        },
        { timeoutMs: 30_000, description: `every target up (${log})` },
      );
      expect(targets.map((t) => t.labels.job).sort()).toEqual([...SERVICES].sort());
    });

    it("receives the key series, and every series the alerts and the dashboard read", async () => {
      const account = await stack.createAccount(`prometheus-${Date.now()}@example.com`, 10);
      const auth = { authorization: `Bearer ${account.api_key}`, "content-type": "application/json" };
      const created = await fetch(`${stack.origin}/api/v1/links`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ url: "https://example.com/prometheus" }),
      });
      const code = ((await created.json()) as { data: { short_code: string } }).data.short_code;
      expect((await fetch(`${stack.origin}/${code}`, { redirect: "manual" })).status).toBe(302);
      const bad = { authorization: "Bearer kurz_made_up_key_0000000000000000000000000000" };
      for (let i = 0; i < 3; i++) await fetch(`${stack.origin}/api/v1/links`, { headers: bad });

      const key = [
        'http_request_duration_seconds_count{job="gateway",route="/api/v1/links",method="POST"}',
        'http_request_duration_seconds_count{job="management",route="/api/v1/links",method="POST"}',
        'clicks_published_total{job="redirect"}',
        'bus_consumer_lag_messages{job="analytics",group="analytics-clicks"}',
        'outbox_oldest_event_age_seconds{job="management"}',
        'clickhouse_click_insert_duration_seconds_count{job="analytics"}',
        'gateway_rate_limit_refusals_total{job="gateway"}',
      ];
      for (const q of key) {
        await waitFor(async () => (await query(q)).length > 0, { timeoutMs: 30_000, description: q });
      }
      await waitFor(
        async () => Number((await query('clicks_published_total{job="redirect"}'))[0]?.value[1]) >= 1,
        {
          timeoutMs: 30_000,
          description: "the click published",
        },
      );

      const known = withHistogramBases(await api<string[]>("label/__name__/values"));
      // The rules as this Prometheus loaded them from alerts.yml.
      const rules = await api<{ groups: { rules: { name: string; query: string }[] }[] }>("rules");
      expect(rules.groups.flatMap((g) => g.rules).length).toBeGreaterThanOrEqual(7);
      const dashboard = JSON.parse(readFileSync(join(observability, "grafana-dashboard.json"), "utf8")) as {
        panels: { targets: { expr: string }[] }[];
      };
      const exprs = [
        ...rules.groups.flatMap((g) => g.rules.map((r) => r.query)),
        ...dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)),
      ];
      const missing = exprs.flatMap((e) => metricNames(e)).filter((name) => !known.has(name));
      expect([...new Set(missing)]).toEqual([]);
    });
  },
);
