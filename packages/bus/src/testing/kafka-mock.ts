import { type ChildProcessByStdio, execFile, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

export interface KafkaMockOptions {
  /** Topics to create; `name:partitions` overrides the partition count for one topic. */
  topics: string[];
  /** Default 3. */
  partitions?: number;
  /** Default 1. */
  brokers?: number;
}

export interface KafkaMock {
  brokers: string[];
  /**
   * An outage: the broker drops its connections and refuses new ones (`down`), then accepts them
   * again on the same address (`up`). Broker ids start at 1; the default, -1, means every broker.
   */
  setBroker(state: "down" | "up", id?: number): Promise<void>;
  stop(): Promise<void>;
}

const buildScript = fileURLToPath(new URL("../../../../infra/kafka-mock/build.sh", import.meta.url));

/**
 * Starts librdkafka's in-memory mock cluster (infra/kafka-mock), building it first when needed.
 * Test infrastructure only. KAFKA_MOCK_BIN points at a prebuilt binary instead.
 */
export async function startKafkaMock(options: KafkaMockOptions): Promise<KafkaMock> {
  const bin = process.env.KAFKA_MOCK_BIN ?? (await build());
  const partitions = options.partitions ?? 3;
  const args = [
    String(options.brokers ?? 1),
    ...options.topics.map((t) => (t.includes(":") ? t : `${t}:${partitions}`)),
  ];
  // stdin stays an open pipe: the broker exits when it closes, i.e. when this process dies. It also
  // carries the down/up commands, each answered by one line on stdout.
  const child = spawn(bin, args, { stdio: ["pipe", "pipe", "pipe"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const lines = createInterface({ input: child.stdout });
  const waiting: ((line: string) => void)[] = [];
  lines.on("line", (line) => waiting.shift()?.(line.trim()));
  const nextLine = () => new Promise<string>((resolve) => waiting.push(resolve));
  const bootstrap = await firstLine(child, exited, nextLine());
  let commands = Promise.resolve();
  return {
    brokers: bootstrap.split(","),
    setBroker(state, id = -1) {
      // One command at a time: answers carry no id, so they pair with commands by order.
      const run = commands.then(async () => {
        const answer = nextLine();
        child.stdin.write(`${state} ${id}\n`);
        const line = await answer;
        if (line !== "ok") throw new Error(`kafka-mock: ${state} ${id}: ${line}`);
      });
      commands = run.catch(() => {});
      return run;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

async function build(): Promise<string> {
  const { stdout } = await promisify(execFile)("bash", [buildScript], { timeout: 120_000 });
  const bin = stdout.trim().split("\n").at(-1);
  if (!bin) throw new Error("kafka-mock: build.sh printed no binary path");
  return bin;
}

function firstLine(
  child: ChildProcessByStdio<Writable, Readable, Readable>,
  exited: Promise<void>,
  line: Promise<string>,
) {
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error("kafka-mock: no bootstrap address within 10 s"));
    }, 10_000);
    line.then((first) => {
      clearTimeout(timer);
      resolve(first);
    });
    exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`kafka-mock exited early (code ${child.exitCode}): ${stderr.trim()}`));
    });
  });
}
