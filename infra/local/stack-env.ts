// The single-machine stack's settings (`./kurz up`), in one place: up.ts gives them to the services,
// and the admin CLI (`./kurz import`, `export`, `accounts:*`, `keys:*`, `overlays:*`, through
// infra/local/cli.ts) runs with the same ones, so the CLI writes its links and Redis records where the
// stack reads them. A variable the operator sets wins in both.
import { resolve } from "node:path";

const root = resolve(import.meta.dirname, "../..");

/** The Redis `./kurz up` starts under .data (KURZ_REDIS_PORT, 6380 by default) unless REDIS_URL names one. */
export function localRedisPort(env: NodeJS.ProcessEnv): number {
  return Number(env.KURZ_REDIS_PORT ?? 6380);
}

/** The public origin's port: --base-port for `./kurz up`, else KURZ_BASE_PORT, else 8080. */
export function localBasePort(env: NodeJS.ProcessEnv): number {
  return Number(env.KURZ_BASE_PORT || 8080);
}

export function localDataDir(env: NodeJS.ProcessEnv): string {
  return resolve(root, env.KURZ_DATA_DIR ?? ".data");
}

/** The internal services' ports a single-machine stack (not scaled) gives from its base port. */
export function localServicePorts(basePort: number): { management: number; analytics: number } {
  return { management: basePort + 1, analytics: basePort + 3 };
}

/**
 * What every service of the single-machine stack (and the CLI) is given: where Postgres, Redis (which
 * also carries the bus) and the embedded analytics store are, and the public origin. Explicit
 * variables in `env` win.
 */
export function localStackEnv(
  env: NodeJS.ProcessEnv,
  basePort: number = localBasePort(env),
): Record<string, string> {
  const dataDir = localDataDir(env);
  const ports = localServicePorts(basePort);
  return {
    REDIS_URL: env.REDIS_URL ?? `redis://127.0.0.1:${localRedisPort(env)}`,
    DATABASE_URL: env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/kurz",
    PUBLIC_BASE_URL: env.PUBLIC_BASE_URL ?? `http://127.0.0.1:${basePort}`,
    // The origin's own hosts (docs/configuration.md): PUBLIC_BASE_URL's, any given, and this machine's
    // names, so that a local stack answers on localhost and 127.0.0.1 whatever PUBLIC_BASE_URL names.
    PUBLIC_HOSTS: [env.PUBLIC_HOSTS, "localhost,127.0.0.1,[::1]"].filter(Boolean).join(","),
    CLICKHOUSE_PATH: env.CLICKHOUSE_PATH ?? resolve(dataDir, "clickhouse"),
    SPOOL_DIR: env.SPOOL_DIR ?? resolve(dataDir, "spool"),
    MANAGEMENT_URL: `http://127.0.0.1:${ports.management}`,
    ANALYTICS_URL: `http://127.0.0.1:${ports.analytics}`,
  };
}
