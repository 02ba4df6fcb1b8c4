import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export default function generateClient(): void {
  // ./kurz test generates it once before the run, while typecheck runs beside the tests and reads it.
  if (process.env.KURZ_PRISMA_CLIENT_GENERATED === "1") return;
  execFileSync(process.execPath, ["scripts/prisma.mjs", "generate"], {
    cwd: fileURLToPath(new URL("..", import.meta.url)),
    stdio: ["ignore", "ignore", "inherit"],
  });
}
