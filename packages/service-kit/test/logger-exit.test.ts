// The logger's last lines before an exit (lifecycle.ts runs these in the service's process; the
// lifecycle tests see them only from outside): flushLoggerBeforeExit answers once every line is
// written, and loggerStreamDone tells the exit when the stream has ended even if its own "close"
// listener never ran.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, expect, it } from "vitest";
import { createLogger, flushLoggerBeforeExit, loggerStreamDone } from "../src/logger.ts";

const dir = mkdtempSync(join(tmpdir(), "kurz-logger-exit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("answers once every line is written, and the stream then counts as done", async () => {
  const file = join(dir, "a.log");
  // Asynchronous writes, as pino's default stdout stream: lines may still be in flight when asked.
  const logger = createLogger("exit-test", "info", pino.destination({ dest: file, sync: false }));
  for (let i = 0; i < 200; i++) logger.info({ i }, "line");
  expect(loggerStreamDone(logger)).toBe(false);
  await new Promise<void>((resolve) => flushLoggerBeforeExit(logger, resolve));
  expect(loggerStreamDone(logger)).toBe(true);
  const lines = readFileSync(file, "utf8").trim().split("\n");
  expect(lines).toHaveLength(200);
  expect(JSON.parse(lines.at(-1)!)).toMatchObject({ service: "exit-test", i: 199, msg: "line" });
});

it("answers through the logger's flush when its stream cannot be ended (a custom destination)", async () => {
  const written: string[] = [];
  const logger = createLogger("exit-test", "info", { write: (line: string) => written.push(line) });
  logger.info("last");
  await new Promise<void>((resolve) => flushLoggerBeforeExit(logger, resolve));
  expect(written).toHaveLength(1);
  expect(loggerStreamDone(logger)).toBe(false);
});
