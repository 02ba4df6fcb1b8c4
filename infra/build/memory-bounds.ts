// KURZ_MEMORY_MB's bounds where only a bundle runs: bundled into every service as
// services/<service>/dist/memory-bounds.mjs, so that the image starts a service from the same shares
// as `./kurz up` (memory.ts), and prints the containers' limits for a budget.
//   memory-bounds.mjs start <service>   shell for infra/docker/entrypoint.sh to eval: the service's
//                                       environment as exports, its Node flags as `set --` arguments
//   memory-bounds.mjs compose           the budget's lines for docker-compose.yml's .env: KURZ_MEMORY_MB
//                                       and each service's container limit
// Both read the budget from KURZ_MEMORY_MB and exit 1 with the reason when it is refused.
import { containerLimitMb, type MemoryPlan, memoryBoundsFor, memoryPlanFrom } from "./memory.ts";
import { nodeFlagsFor, SERVICES, type ServiceName } from "./node-flags.ts";

/** The variable that carries `service`'s container limit in docker-compose.yml. */
export const limitVariable = (service: ServiceName) => `KURZ_${service.toUpperCase()}_MEM_LIMIT`;

// Values are digits, flags and fixed names; quoted all the same, as the shell reads them back.
const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

export function startScript(service: ServiceName, plan: MemoryPlan): string {
  const bounds = memoryBoundsFor(service, plan);
  return [
    ...Object.entries(bounds.env).map(([k, v]) => `export ${k}=${quote(v)}`),
    `set -- ${[...nodeFlagsFor(service), ...bounds.nodeFlags].map(quote).join(" ")}`,
  ].join("\n");
}

export function composeEnv(plan: MemoryPlan): string {
  return [
    `KURZ_MEMORY_MB=${plan.totalMb}`,
    ...SERVICES.map((s) => `${limitVariable(s)}=${containerLimitMb(s, plan)}m`),
  ].join("\n");
}

function main(argv: string[]): number {
  const [command, service] = argv;
  const plan = memoryPlanFrom(process.env.KURZ_MEMORY_MB);
  if ("refused" in plan) {
    console.error(plan.refused);
    return 1;
  }
  if (command === "start" && (SERVICES as readonly string[]).includes(service ?? "")) {
    console.log(startScript(service as ServiceName, plan));
    return 0;
  }
  if (command === "compose" && argv.length === 1) {
    console.log(composeEnv(plan));
    return 0;
  }
  console.error(`usage: memory-bounds.mjs start <${SERVICES.join("|")}> | memory-bounds.mjs compose`);
  return 2;
}

if (process.argv[1]?.replace(/\\/g, "/").match(/memory-bounds\.(ts|mjs)$/))
  process.exitCode = main(process.argv.slice(2));
