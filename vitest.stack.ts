// The setup files that give @kurz/testing the services' own code for startStack: each service
// registers its in-process start function (and management its account creator) from its test folder,
// since packages may not import services (biome.json). Every vitest project whose tests start a stack
// lists these in `setupFiles`; a script that starts one imports them itself (infra/bench).
import { resolve } from "node:path";

export const STACK_SETUP_FILES = ["analytics", "gateway", "management", "redirect"].map((name) =>
  resolve(import.meta.dirname, "services", name, "test", "register-stack.ts"),
);
