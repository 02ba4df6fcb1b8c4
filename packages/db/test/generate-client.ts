import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export default function generateClient(): void {
  execFileSync(process.execPath, ["scripts/prisma.mjs", "generate"], {
    cwd: fileURLToPath(new URL("..", import.meta.url)),
    stdio: ["ignore", "ignore", "inherit"],
  });
}
