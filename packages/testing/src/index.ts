export * from "./database.ts";
export * from "./dns.ts";
export * from "./http-server.ts";
export * from "./ids.ts";
export * from "./infra.ts";
export * from "./metrics.ts";
export * from "./net.ts";
export * from "./postgres-tools.ts";
export * from "./process.ts";
export * from "./redis.ts";
export * from "./tcp-proxy.ts";
export * from "./wait.ts";
// The whole-stack booter lives at "@kurz/testing/stack" (it pulls in @kurz/db).
