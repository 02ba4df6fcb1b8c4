import { createServer, type RequestListener, type Server } from "node:http";
import { afterAll } from "vitest";
import { createLogger, type Logger, listen } from "../src/index.ts";

export interface CapturedLogger {
  logger: Logger;
  lines: () => Array<Record<string, unknown>>;
  raw: () => string;
}

export function captureLogger(service = "test", level: "info" | "debug" = "info"): CapturedLogger {
  const chunks: string[] = [];
  const logger = createLogger(service, level, { write: (chunk: string) => void chunks.push(chunk) });
  return {
    logger,
    raw: () => chunks.join(""),
    lines: () =>
      chunks.flatMap((c) =>
        c
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l)),
      ),
  };
}

/** Serves a handler on an ephemeral loopback port for the rest of the file. */
export async function serve(handler: RequestListener): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  const { port } = await listen(server, "127.0.0.1", 0);
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${port}`, server };
}
