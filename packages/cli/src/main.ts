// `./kurz login|shorten|links|stats|qr`: the Kurz API from a terminal, through @kurz/sdk with the saved
// profile (profile.ts). Text for people by default, `--json` for scripts; the exit code says what
// went wrong (exit-codes.ts). Needs only Node and the workspace's dependencies: no database.
import { createInterface, type Interface } from "node:readline";
import { createKurzClient } from "@kurz/sdk";
import { listLinks } from "./commands/links-list.ts";
import { removeLinks } from "./commands/links-remove.ts";
import { login } from "./commands/login.ts";
import { qr } from "./commands/qr.ts";
import { shorten } from "./commands/shorten.ts";
import { stats } from "./commands/stats.ts";
import { CliError, EXIT, type ExitCode, toCliError } from "./exit-codes.ts";
import type { CommandContext } from "./output.ts";
import { resolveProfile } from "./profile.ts";

type Run = (ctx: CommandContext) => Promise<void>;

function pick(command: string | undefined, sub: string | undefined): { run: Run; subUsed: boolean } {
  switch (command) {
    case "login":
      return { run: login, subUsed: false };
    case "shorten":
      return { run: shorten, subUsed: false };
    case "stats":
      return { run: (ctx) => stats(ctx), subUsed: false };
    case "qr":
      return { run: qr, subUsed: false };
    case "links":
      if (sub === "ls") return { run: (ctx) => listLinks(ctx), subUsed: true };
      if (sub === "search") return { run: (ctx) => searchLinks(ctx), subUsed: true };
      if (sub === "rm") return { run: removeLinks, subUsed: true };
      throw CliError.usage(
        "usage: ./kurz links ls [--search Q] [--limit N] | links search QUERY | links rm CODE…",
      );
    default:
      throw CliError.usage(`unknown command '${command ?? ""}' (try ./kurz help)`);
  }
}

function searchLinks(ctx: CommandContext): Promise<void> {
  const [query, ...rest] = ctx.args;
  if (!query || query.startsWith("-")) throw CliError.usage("usage: ./kurz links search QUERY");
  return listLinks({ ...ctx, args: rest }, query);
}

/**
 * Questions on the terminal, answered line by line: one readline for the whole run whose lines queue
 * up, so answers piped on stdin all at once are taken in order.
 */
function asker(): { ask: CommandContext["ask"]; close(): void } {
  let rl: Interface | undefined;
  let muted = false;
  let closed = false;
  const lines: string[] = [];
  const waiting: ((line: string | undefined) => void)[] = [];
  const open = () => {
    if (rl) return;
    rl = createInterface({
      input: process.stdin,
      output: process.stderr,
      terminal: process.stdin.isTTY === true,
    });
    const output = rl as unknown as { _writeToOutput(text: string): void };
    const write = output._writeToOutput.bind(rl);
    // A secret's keystrokes are not echoed (only the question is written).
    output._writeToOutput = (text: string) => void (muted ? undefined : write(text));
    rl.on("line", (line) => {
      const next = waiting.shift();
      if (next) next(line);
      else lines.push(line);
    });
    rl.on("close", () => {
      closed = true;
      for (const next of waiting.splice(0)) next(undefined);
    });
  };
  const nextLine = () =>
    new Promise<string | undefined>((resolve) => {
      if (lines.length > 0) resolve(lines.shift());
      else if (closed) resolve(undefined);
      else waiting.push(resolve);
    });
  return {
    ask: async (question, secret = false) => {
      open();
      process.stderr.write(question);
      muted = secret && process.stdin.isTTY === true;
      const answer = await nextLine();
      if (muted) process.stderr.write("\n");
      muted = false;
      if (answer === undefined) throw new CliError("No answer on standard input", EXIT.usage, "USAGE");
      return answer;
    },
    close: () => rl?.close(),
  };
}

/** Runs one user command; resolves to its exit code (0 ok, 1 API, 2 usage, 3 auth, 4 not found). */
export async function runUserCommand(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<ExitCode> {
  const json = argv.includes("--json");
  const args = argv.filter((arg) => arg !== "--json");
  const { ask, close } = asker();
  try {
    const { run, subUsed } = pick(args[0], args[1]);
    await run({
      args: args.slice(subUsed ? 2 : 1),
      json,
      env,
      ask,
      print: (text) => process.stdout.write(`${text}\n`),
      client: async () => {
        const { host, key } = await resolveProfile(env);
        return createKurzClient({ baseUrl: host, apiKey: key });
      },
    });
    return EXIT.ok;
  } catch (thrown) {
    // parseArgs refuses unknown options and missing values with codes of its own.
    const code = (thrown as { code?: string }).code;
    const error = code?.startsWith("ERR_PARSE_ARGS")
      ? CliError.usage((thrown as Error).message)
      : toCliError(thrown);
    if (json) {
      const report = {
        error: { code: error.code ?? "ERROR", message: error.message, details: error.details },
      };
      process.stderr.write(`${JSON.stringify(report)}\n`);
    } else {
      process.stderr.write(
        `kurz: ${error.message}${error.code && error.exitCode !== EXIT.usage ? ` (${error.code})` : ""}\n`,
      );
    }
    return error.exitCode;
  } finally {
    close();
  }
}
