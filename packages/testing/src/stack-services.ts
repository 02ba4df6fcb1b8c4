// What a stack needs of the services' own code, registered by the services: packages sit below services
// and never import them (biome.json's rule for packages/**). Each service registers its in-process
// start function from its test folder (services/<name>/test/register-stack.ts), and management also
// what `./kurz accounts:create` does; the projects whose tests start stacks list those files as vitest
// setup files (STACK_SETUP_FILES, vitest.stack.ts), and a script that starts a stack imports them.
// A registration loads the service's code only when a stack first needs it, so a process stack never
// imports the in-process services.
import type { Logger, StartedService } from "../../service-kit/src/index.ts";

export type ServiceName = "management" | "analytics" | "redirect" | "gateway";

/** Where an in-process service writes its log lines (one whole line per call). */
export interface LogDestination {
  write(line: string): void;
}

/** Starts one service in this process, as its main.ts would (its config read from `env`). */
export type InProcessStarter = (
  env: NodeJS.ProcessEnv,
  logs: LogDestination,
) => Promise<{ logger: Logger; service: StartedService }>;

/** What `./kurz accounts:create` answers. */
export interface CreatedAccount {
  account_id: string;
  email: string;
  api_key: string;
  link_limit: number;
}

export interface AccountCreator {
  createAccount(email: string, linkLimit?: number): Promise<CreatedAccount>;
  close(): Promise<void>;
}

/** `cliEnv`: the environment the CLI would have run with (the parent's, then the stack's). */
export type AccountCreatorFactory = (cliEnv: NodeJS.ProcessEnv) => AccountCreator;

const starters = new Map<ServiceName, InProcessStarter>();
let accounts: AccountCreatorFactory | undefined;

const HOW =
  "a test's vitest project lists STACK_SETUP_FILES (vitest.stack.ts) in its setupFiles; a script " +
  "imports services/<name>/test/register-stack.ts itself";

export function registerInProcessService(name: ServiceName, starter: InProcessStarter): void {
  starters.set(name, starter);
}

export function registerAccountCreator(factory: AccountCreatorFactory): void {
  accounts = factory;
}

export function inProcessStarter(name: ServiceName): InProcessStarter {
  const starter = starters.get(name);
  if (!starter) throw new Error(`@kurz/testing: no in-process ${name} registered: ${HOW}`);
  return starter;
}

/** What the CLI does, in this process: a CLI process per account cost 7–15 s on a loaded machine. */
export function accountCreator(cliEnv: NodeJS.ProcessEnv): AccountCreator {
  if (!accounts) throw new Error(`@kurz/testing: no account creator registered (management's): ${HOW}`);
  return accounts(cliEnv);
}
