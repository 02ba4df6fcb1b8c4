// The admin CLI as `./kurz` runs it: management's CLI (services/management/src/cli.ts) with the
// single-machine stack's settings (stack-env.ts), so an import next to `./kurz up` writes to the
// Postgres and Redis the stack serves from. Nothing is started: if the stack's Redis is not running,
// the CLI writes the database only and the stack rebuilds the Redis records on their first miss.
import { localStackEnv } from "./stack-env.ts";

Object.assign(process.env, localStackEnv(process.env));
await import("../../services/management/src/cli.ts");
