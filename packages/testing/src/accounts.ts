// What `./kurz accounts:create` does (services/management/src/cli.ts), without a process: management
// registers it (services/management/test/register-stack.ts), and both stacks use it.
export { type AccountCreator, accountCreator, type CreatedAccount } from "./stack-services.ts";
