// The four services started inside the calling process (the test file's vitest worker) by the same
// start functions their main.ts hands to runService, so a handler test pays neither four Node
// start-ups nor four tsx compilations. What runService adds around them (signal handlers, telemetry,
// process exit) is process-wide and stays out: docs/decisions/0011-in-process-test-stack.md.
// Loaded by startStack({ inProcess: true }) only, so process stacks never load service code.
//
// Relative imports on purpose: every service depends on @kurz/testing for its tests, so a
// package dependency back would be a cycle.
import { loadAnalyticsConfig } from "../../../services/analytics/src/config.ts";
import { startAnalytics } from "../../../services/analytics/src/service.ts";
import { loadGatewayConfig } from "../../../services/gateway/src/config.ts";
import { startGateway } from "../../../services/gateway/src/service.ts";
import type { CreatedAccount } from "../../../services/management/src/accounts/create-account.ts";
import { startManagement } from "../../../services/management/src/compose.ts";
import { loadManagementConfig } from "../../../services/management/src/config.ts";
import { loadRedirectConfig } from "../../../services/redirect/src/config.ts";
import { startRedirect } from "../../../services/redirect/src/service.ts";
import { createLogger, drainServers, type Logger, type StartedService } from "../../service-kit/src/index.ts";
import { type AccountCreator, accountCreator } from "./accounts.ts";
import { trackInProcessOutput } from "./process.ts";
import { waitFor } from "./wait.ts";

export type ServiceName = "management" | "analytics" | "redirect" | "gateway";

export interface InProcessServices {
  /** Drains and closes every service, front (redirect) to back; rejects if one failed to close. */
  stop(): Promise<void>;
  /** Every service's log lines so far, for a failure message. */
  output(): string;
  /** What `./kurz accounts:create` does (services/management/src/cli.ts), without a process. */
  createAccount(email: string, linkLimit?: number): Promise<CreatedAccount>;
}

interface Running {
  name: ServiceName;
  service: StartedService;
  logger: Logger;
}

// Test requests are short; a stop that waits longer than this means a leaked connection.
const GRACE_MS = 2_000;
const MAX_LOG_LINES = 2_000;
const STOP_ORDER: ServiceName[] = ["redirect", "gateway", "analytics", "management"];
// The front two drain together: an API connection the redirect spliced to the gateway (decision 0038)
// ends only when the gateway closes its side, so a redirect draining alone waited out the whole grace
// for every kept-alive API connection a test left (2 s of each test file's stop: issue 15).
const DRAIN_TOGETHER: ServiceName[] = ["redirect", "gateway"];

/**
 * Starts the services, each with its own environment (the process stack's variables, PORT included),
 * and resolves once each answers 200 at its readiness URL.
 */
export async function startServicesInProcess(
  envFor: (name: ServiceName) => Record<string, string>,
  readyUrlFor: (name: ServiceName) => string,
): Promise<InProcessServices> {
  let accounts: AccountCreator | undefined;
  const lines: string[] = [];
  const output = () => lines.join("");
  // pino writes whole lines; a bounded buffer keeps a chatty test from growing the worker's heap.
  const destination = {
    write(line: string) {
      lines.push(line);
      if (lines.length > MAX_LOG_LINES) lines.shift();
    },
  };
  const starters: Record<
    ServiceName,
    (env: NodeJS.ProcessEnv) => { logger: Logger; start: Promise<StartedService> }
  > = {
    management: (env) => {
      const config = loadManagementConfig(env);
      const logger = createLogger("management", config.LOG_LEVEL, destination);
      return { logger, start: startManagement(config, logger) };
    },
    analytics: (env) => {
      const config = loadAnalyticsConfig(env);
      const logger = createLogger("analytics", config.LOG_LEVEL, destination);
      return { logger, start: startAnalytics(config, logger) };
    },
    redirect: (env) => {
      const config = loadRedirectConfig(env);
      const logger = createLogger("redirect", config.LOG_LEVEL, destination);
      return { logger, start: startRedirect(config, logger) };
    },
    gateway: (env) => {
      const config = loadGatewayConfig(env);
      const logger = createLogger("gateway", config.LOG_LEVEL, destination);
      return { logger, start: startGateway(config, logger) };
    },
  };

  const running: Running[] = [];
  const untrack = trackInProcessOutput(`in-process stack ${readyUrlFor("redirect")}`, output);
  const stop = async () => {
    const failures: string[] = [];
    const together = running.filter((r) => DRAIN_TOGETHER.includes(r.name));
    await Promise.all(together.map((r) => drainServers(r.service.servers, GRACE_MS, r.logger)));
    for (const name of STOP_ORDER) {
      const r = running.find((s) => s.name === name);
      if (!r) continue;
      if (!together.includes(r)) await drainServers(r.service.servers, GRACE_MS, r.logger);
      try {
        await r.service.close();
      } catch (err) {
        failures.push(`${name}: ${String(err)}`);
      }
    }
    running.length = 0;
    untrack();
    await accounts?.close();
    if (failures.length > 0) throw new Error(`closing in-process services failed: ${failures.join("; ")}`);
  };

  // As the process stack does: all four start together (each retries what it needs from the others).
  const booted = await Promise.allSettled(
    (["management", "analytics", "redirect", "gateway"] as const).map(async (name) => {
      // The child process would see the parent's environment under its own; so does the config here.
      const { logger, start } = starters[name]({ ...process.env, ...envFor(name) });
      running.push({ name, service: await start, logger });
      await waitFor(() => answers200(readyUrlFor(name)), {
        timeoutMs: 60_000,
        description: `${name} ready at ${readyUrlFor(name)}`,
      });
    }),
  );
  const failure = booted.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failure) {
    console.error(output());
    await stop().catch((err: unknown) => console.error(err));
    throw failure.reason;
  }
  // The CLI runs with the stack's environment over the parent's, and reads the key limits from it.
  accounts = accountCreator({ ...process.env, ...envFor("management") });
  return { stop, output, createAccount: (email, linkLimit) => accounts!.createAccount(email, linkLimit) };
}

async function answers200(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
  await res.body?.cancel();
  return res.status === 200;
}
