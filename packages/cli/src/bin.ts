// The process `./kurz <user command>` runs (main.ts has the commands).
import { runUserCommand } from "./main.ts";

process.exitCode = await runUserCommand(process.argv.slice(2));
