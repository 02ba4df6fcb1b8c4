export * from "./database.ts";
export * from "./infra.ts";
export * from "./net.ts";
export * from "./process.ts";
export * from "./redis.ts";
export * from "./wait.ts";
