import { HttpUrlString, parseHost } from "@kurz/contracts";
import { z } from "zod";

export const DEV_INTERNAL_TOKEN = "kurz-dev-internal-token";
/** The analytics salt's development default (services/analytics/src/config.ts). */
export const DEV_ANALYTICS_SALT_SECRET = "kurz-dev-analytics-salt";
/** The webhook secrets key's development default (services/management/src/config.ts). */
export const DEV_WEBHOOK_SECRETS_KEY = "kurz-dev-webhook-secrets-key";

/**
 * Secrets whose development defaults are public (they are in this repository): production refuses
 * to start with any of them unset or at its default.
 */
const DEV_SECRETS: Record<string, string> = {
  INTERNAL_TOKEN: DEV_INTERNAL_TOKEN,
  ANALYTICS_SALT_SECRET: DEV_ANALYTICS_SALT_SECRET,
  WEBHOOK_SECRETS_KEY: DEV_WEBHOOK_SECRETS_KEY,
};

/** True for an address only this machine can reach: 127.0.0.0/8, ::1, localhost (also bracketed or v4-mapped). */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1");
  if (h === "localhost" || h === "::1" || h === "0:0:0:0:0:0:0:1") return true;
  const v4 = h.startsWith("::ffff:") ? h.slice(7) : h;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

type Env = Record<string, string | undefined>;

export class ConfigError extends Error {
  declare readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
    // Non-enumerable so Node's uncaught-error printout shows the list once.
    Object.defineProperty(this, "problems", { value: problems, enumerable: false });
    // An uncaught ConfigError should print the list, not a stack trace into zod.
    this.stack = `${this.name}: ${this.message}`;
  }
}

/**
 * Parses the environment with a service's schema. On failure throws one ConfigError naming
 * every bad variable; values are never echoed because some of them are secrets.
 */
export function loadConfig<S extends z.ZodObject>(schema: S, env: Env = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  const problems = result.success
    ? []
    : result.error.issues.map((issue) => {
        // path[0] is the variable; deeper segments (list indexes) would only confuse.
        const name = issue.path[0] === undefined ? "(environment)" : String(issue.path[0]);
        return `${name}: ${issue.message}`;
      });
  problems.push(...crossFieldProblems(Object.keys(schema.shape), env));
  if (problems.length > 0) throw new ConfigError(problems);
  return result.data as z.infer<S>;
}

/**
 * Rules spanning two variables live here rather than as zod refinements on
 * commonConfigSchema, because zod refuses `.extend()` overrides (e.g. a service's own
 * PORT default) on an object carrying refinements. They apply to any schema that has the key.
 */
function crossFieldProblems(keys: readonly string[], env: Env): string[] {
  const problems: string[] = [];
  const has = (key: string) => keys.includes(key);
  for (const [key, devDefault] of Object.entries(DEV_SECRETS)) {
    const value = env[key] ?? "";
    if (has(key) && env.NODE_ENV === "production" && (value === "" || value === devDefault)) {
      problems.push(`${key}: must be set to a secret (not the development default) when NODE_ENV=production`);
    }
  }
  // The development token is public: a service reachable from other machines must not accept it
  // (nor hold it, since every internal credential is derived from it).
  const token = env.INTERNAL_TOKEN || DEV_INTERNAL_TOKEN;
  const host = env.HOST || "127.0.0.1";
  const alreadyRefused = problems.some((p) => p.startsWith("INTERNAL_TOKEN:"));
  if (
    has("INTERNAL_TOKEN") &&
    has("HOST") &&
    token === DEV_INTERNAL_TOKEN &&
    !isLoopbackHost(host) &&
    !alreadyRefused
  ) {
    problems.push(
      "INTERNAL_TOKEN: the development default is refused when HOST is not a loopback address; set a secret",
    );
  }
  if (has("KAFKA_BROKERS") && env.BUS === "kafka" && (env.KAFKA_BROKERS ?? "").trim() === "") {
    problems.push("KAFKA_BROKERS: is required when BUS=kafka (comma-separated host:port list)");
  }
  return problems;
}

// docker-compose passes `VAR=` for unset values; treat that as "not set" so defaults apply.
export const unsetIfEmpty = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === "" ? undefined : value), schema);

export const port = (defaultPort?: number) => {
  const base = z.coerce
    .number<string>({ error: "must be a port number (0-65535)" })
    .int("must be a port number (0-65535)")
    .min(0, "must be a port number (0-65535)")
    .max(65535, "must be a port number (0-65535)");
  return unsetIfEmpty(
    defaultPort === undefined
      ? z.string({ error: "is required (a port number 0-65535)" }).pipe(base)
      : base.default(defaultPort),
  );
};

/** A comma-separated list: items trimmed, empty items dropped; unset or empty gives []. */
export const commaList = () =>
  z
    .string()
    .default("")
    .transform((list) =>
      list
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    );

export const booleanFlag = (defaultValue: boolean) =>
  unsetIfEmpty(
    z
      .enum(["true", "false", "1", "0", "yes", "no"], { error: "must be true or false" })
      .default(defaultValue ? "true" : "false")
      .transform((v) => v === "true" || v === "1" || v === "yes"),
  );

const httpUrlSchema = () => HttpUrlString("must be an http(s) URL");

/** An http(s) URL; unset or empty gives the default (so "" cannot mean "off": use optionalHttpUrl). */
export const httpUrl = (defaultUrl: string) => unsetIfEmpty(httpUrlSchema().default(defaultUrl));

export const optionalHttpUrl = () => unsetIfEmpty(httpUrlSchema().optional());

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

export const commonConfigSchema = z.object({
  NODE_ENV: unsetIfEmpty(z.string().default("development")),
  LOG_LEVEL: unsetIfEmpty(
    z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(", ")}` }).default("info"),
  ),
  INTERNAL_TOKEN: unsetIfEmpty(z.string().default(DEV_INTERNAL_TOKEN)),
  REDIS_URL: unsetIfEmpty(
    z
      .url({ protocol: /^rediss?$/, error: "must be a redis:// or rediss:// URL" })
      .default("redis://127.0.0.1:6379"),
  ),
  // Prepended to every Redis key this deployment writes (several deployments or test runs on one Redis).
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9._:-]*$/, "may contain only letters, digits, '.', '_', ':' and '-'")
    .default(""),
  BUS: unsetIfEmpty(z.enum(["redis", "kafka"], { error: "must be redis or kafka" }).default("redis")),
  KAFKA_BROKERS: unsetIfEmpty(
    commaList().pipe(z.array(z.string().regex(/^[^\s:/]+:\d{1,5}$/, "each broker must be host:port"))),
  ),
  // Consumer-group timing. Real Kafka rejects sessions under 6 s; tests against the librdkafka mock
  // broker use short ones to keep group joins fast.
  KAFKA_SESSION_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  KAFKA_REBALANCE_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
  KAFKA_HEARTBEAT_MS: z.coerce.number().int().positive().default(3_000),
  // BUS=redis: a stream is trimmed, down to what some consumer group still needs, once it holds more
  // entries than this. Click events carry raw IPs, so consumed ones should not linger; unconsumed
  // ones are never dropped (docs/analytics.md, "Where raw IPs live").
  BUS_REDIS_MAX_LEN: z.coerce.number().int().positive().default(10_000),
  BUS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9._-]*$/, "may contain only letters, digits, '.', '_' and '-'")
    .default(""),
  PUBLIC_BASE_URL: httpUrl("http://127.0.0.1:8080").transform((url) => url.replace(/\/+$/, "")),
  // More names of the public origin besides PUBLIC_BASE_URL's host (origin-hosts.ts): the API, docs,
  // dashboard and campaign pages answer only on these; every other host is a branded domain or nothing.
  PUBLIC_HOSTS: commaList().pipe(
    z.array(
      z
        .string()
        .refine(
          (host) => parseHost(host) !== null,
          "each must be a host name (name or name:port, no scheme)",
        ),
    ),
  ),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalHttpUrl(),
  OTEL_SERVICE_NAME: unsetIfEmpty(z.string().optional()),
  HOST: unsetIfEmpty(z.string().default("127.0.0.1")),
  // No default here: every service extends with its own, e.g. `PORT: port(8081)`.
  PORT: port(),
});

export type CommonConfig = z.infer<typeof commonConfigSchema>;
