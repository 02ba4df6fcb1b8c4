// A test file's stack and the clients its tests open on it, as vitest hooks: started in beforeAll,
// closed in afterAll, both registered where useStack is called (a file's top level, or a describe block
// that wants a stack of its own). Import from "@kurz/testing/use-stack".
import type { RequestListener } from "node:http";
import { createPrisma, type PrismaClient } from "@kurz/db";
import { Redis } from "ioredis";
import { afterAll, beforeAll } from "vitest";
import { startTestDnsServer, type TestDnsServer } from "./dns.ts";
import { type LocalHttpServer, startHttpServer } from "./http-server.ts";
import { type DatabaseBehindProxy, migratedDatabaseBehindProxy } from "./migrated-database.ts";
import { printProcessOutputOnFailure } from "./process.ts";
import { type Stack, type StackOptions, startStack } from "./stack.ts";

/** What useStack gives the tests once its beforeAll has run (reading a member earlier throws). */
export interface StackFixture {
  readonly stack: Stack;
  /** A Prisma client on the stack's database, opened on first use. */
  readonly prisma: PrismaClient;
  /** A Redis client under the stack's key prefix (REDIS_KEY_PREFIX), opened on first use. */
  readonly redis: Redis;
}

/**
 * Starts a stack before the tests and stops it, with the clients they opened, after them; a failed
 * test prints the services' output (printProcessOutputOnFailure). `start` is the stack's options, or
 * a function that starts it: called in beforeAll, so it may read what an earlier beforeAll set up (a
 * DNS server's address), or start the stack another way (management's startLinksStack).
 */
export function useStack(start: StackOptions | (() => Promise<Stack>) = {}): StackFixture {
  return fixture(typeof start === "function" ? start : () => startStack(start), {});
}

/** useStack's stack, with management's database behind a TCP proxy the tests can cut. */
export interface StackBehindProxyFixture extends StackFixture {
  /** The database, its proxy (`db.proxy.cut()`, `open()`) and the proxy's URL, which the stack uses. */
  readonly db: DatabaseBehindProxy;
}

/**
 * useStack with the stack's DATABASE_URL going through a TCP proxy to a migrated database of its own
 * (named after `name`): `start` gets the proxy's URL to start the stack with. `prisma` reaches the
 * database directly, so the tests can read it while the proxy is cut; the proxy is open again before
 * the stack stops, so the services stop as they do with a database.
 */
export function useStackBehindProxy(
  name: string,
  start: (databaseUrl: string) => Promise<Stack>,
): StackBehindProxyFixture {
  // Started before the stack's hooks are registered, so it is dropped after the stack stops.
  const db = useStarted(
    "the database behind its proxy",
    () => migratedDatabaseBehindProxy(name),
    (started) => started.drop(),
  );
  const stackFixture = fixture(() => start(db().url), {
    databaseUrl: () => db().database.url,
    beforeStop: () => db().proxy.open(),
  });
  return withMembers(stackFixture, {
    get db() {
      return db();
    },
  });
}

/** A fixture with `more` members besides its own (which it still answers itself). */
export function withMembers<F extends object, M extends object>(fixture: F, more: M): F & M {
  return Object.defineProperties(Object.create(fixture), Object.getOwnPropertyDescriptors(more));
}

/**
 * A DNS server of the file's own (startTestDnsServer) for a stack to resolve with, from beforeAll to
 * afterAll; the function returned gives it once started. Call it before useStack: hooks run in order
 * and after-hooks in reverse, so the server answers from the stack's start to its stop.
 */
export function useTestDnsServer(): () => TestDnsServer {
  return useStarted(
    "the DNS server",
    () => startTestDnsServer(),
    (dns) => dns.stop(),
  );
}

/** A local HTTP server (startHttpServer) from beforeAll to afterAll, as useTestDnsServer. */
export function useHttpServer(handler: RequestListener, host?: string): () => LocalHttpServer {
  return useStarted(
    "the HTTP server",
    () => startHttpServer(handler, host),
    (server) => server.close(),
  );
}

/** Something started in beforeAll and stopped in afterAll; the function returned gives it meanwhile. */
function useStarted<T>(what: string, start: () => Promise<T>, stop: (started: T) => Promise<void>): () => T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  });
  afterAll(async () => {
    if (started) await stop(started);
    started = undefined;
  });
  return () => {
    if (!started) throw new Error(`${what} is not started yet (it starts in beforeAll)`);
    return started;
  };
}

function fixture(
  start: () => Promise<Stack>,
  opts: { databaseUrl?: () => string; beforeStop?: () => Promise<void> },
): StackFixture {
  let stack: Stack | undefined;
  let prisma: PrismaClient | undefined;
  let redis: Redis | undefined;
  const started = () => {
    if (!stack) throw new Error("the stack is not started yet (useStack starts it in beforeAll)");
    return stack;
  };
  printProcessOutputOnFailure();
  beforeAll(async () => {
    stack = await start();
  });
  afterAll(async () => {
    redis?.disconnect();
    await prisma?.$disconnect();
    if (stack) {
      await opts.beforeStop?.();
      await stack.stop();
    }
    [stack, prisma, redis] = [undefined, undefined, undefined];
  });
  return {
    get stack() {
      return started();
    },
    get prisma() {
      prisma ??= createPrisma(opts.databaseUrl?.() ?? started().databaseUrl);
      return prisma;
    },
    get redis() {
      const { env } = started();
      redis ??= new Redis(env.REDIS_URL!, { keyPrefix: env.REDIS_KEY_PREFIX });
      return redis;
    },
  };
}
