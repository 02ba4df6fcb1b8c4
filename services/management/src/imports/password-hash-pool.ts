// The import's password hashes run on threads of their own, not on libuv's pool where sign-in, sign-up
// and link creates verify and hash (@node-rs/argon2's async calls): a 100,000-row file with passwords is
// about 40 minutes of argon2 on one core, and on the shared pool it queued every sign-in behind it.
// Each thread lowers its own scheduling priority (on Linux a thread has its own nice value), so the
// operating system gives a sign-in's hash the core first when both want it. Jobs take turns: the pool
// runs one hash of each job that is waiting before a second of any, so a small import is not stuck
// behind a large one's batch; and a job that has had fewer than HEAD_START hashes goes before those
// that have had more, so an import of a few hundred rows with passwords runs on every thread rather
// than one in two beside a large one, and a large one gives way for at most that many hashes of each
// newcomer. docs/import-export.md, "Passwords".
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { ARGON2_OPTIONS } from "../security/passwords.ts";

/** Nice value of the hashing threads: the lowest, so every thread that serves requests goes first. */
const HASH_THREAD_NICE = 19;

/** Hashes a job has before it only takes turns (a batch's worth). */
const HEAD_START = 1_000;

// Plain CommonJS evaluated in the thread, so the pool works the same under tsx and in a build. The
// argon2 module is loaded by the path this module resolves (an evaluated worker resolves from the cwd).
const THREAD_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
try { require("node:os").setPriority(workerData.nice); } catch {}
const { hashSync } = require(workerData.argon2);
parentPort.on("message", ({ id, password }) => {
  try { parentPort.postMessage({ id, hash: hashSync(password, workerData.options) }); }
  catch (err) { parentPort.postMessage({ id, error: String(err && err.message || err) }); }
});`;

interface Task {
  id: number;
  password: string;
  resolve: (hash: string) => void;
  reject: (err: Error) => void;
}

interface Thread {
  worker: Worker;
  busy: Task | null;
}

export class PasswordHashPool {
  private readonly threads: Thread[] = [];
  /** Waiting tasks per owner (an import job); the owners in the order they take their turns. */
  private readonly queues = new Map<string, Task[]>();
  private turn: string[] = [];
  /** Hashes made per owner (counted up to the head start) until the owner is forgotten. */
  private readonly served = new Map<string, number>();
  private nextId = 0;
  private closed = false;
  private done = 0;

  constructor(
    private readonly size: number,
    private readonly headStart = HEAD_START,
  ) {
    if (!Number.isInteger(size) || size < 1) throw new Error("a hash pool needs at least one thread");
  }

  /** Hashes made since the pool started (every owner). */
  get hashed(): number {
    return this.done;
  }

  /** The argon2id hash of `password` (passwords.ts' parameters), queued behind `owner`'s earlier ones. */
  hash(password: string, owner: string): Promise<string> {
    if (this.closed) return Promise.reject(new Error("the password hash pool is closed"));
    return new Promise<string>((resolve, reject) => {
      let queue = this.queues.get(owner);
      if (!queue) {
        queue = [];
        this.queues.set(owner, queue);
        this.turn.push(owner);
      }
      queue.push({ id: this.nextId++, password, resolve, reject });
      this.dispatch();
    });
  }

  /** The owner's job has ended (or handed its turn back): its count of hashes made starts again. */
  forget(owner: string): void {
    if (!this.queues.has(owner)) this.served.delete(owner);
  }

  /** Stops the threads; what is queued or running is rejected. */
  async close(): Promise<void> {
    this.closed = true;
    const err = new Error("the password hash pool is closed");
    for (const queue of this.queues.values()) for (const task of queue) task.reject(err);
    this.queues.clear();
    this.turn = [];
    const threads = this.threads.splice(0);
    for (const t of threads) t.busy?.reject(err);
    await Promise.all(threads.map((t) => t.worker.terminate()));
  }

  private dispatch(): void {
    for (;;) {
      if (this.turn.length === 0) return;
      const thread = this.idleThread();
      if (!thread) return;
      // The owner with the fewest hashes made while under its head start, else round robin: the one
      // at the head gives one task and goes to the back.
      let pick = 0;
      for (let i = 0; i < this.turn.length; i++) {
        if (this.servedOf(this.turn[i] as string) < this.servedOf(this.turn[pick] as string)) pick = i;
      }
      const owner = this.turn.splice(pick, 1)[0] as string;
      this.served.set(owner, this.servedOf(owner) + 1);
      const queue = this.queues.get(owner) as Task[];
      const task = queue.shift() as Task;
      if (queue.length === 0) this.queues.delete(owner);
      else this.turn.push(owner);
      thread.busy = task;
      thread.worker.ref();
      thread.worker.postMessage({ id: task.id, password: task.password });
    }
  }

  private servedOf(owner: string): number {
    return Math.min(this.served.get(owner) ?? 0, this.headStart);
  }

  /** An idle thread; threads start on first use, so a process that never imports passwords has none. */
  private idleThread(): Thread | undefined {
    const idle = this.threads.find((t) => t.busy === null);
    if (idle || this.threads.length >= this.size) return idle;
    return this.spawn();
  }

  private spawn(): Thread {
    const worker = new Worker(THREAD_SOURCE, {
      eval: true,
      workerData: {
        argon2: createRequire(import.meta.url).resolve("@node-rs/argon2"),
        options: ARGON2_OPTIONS,
        nice: HASH_THREAD_NICE,
      },
    });
    // An idle thread does not keep the process alive; a running hash does (its caller awaits it).
    worker.unref();
    const thread: Thread = { worker, busy: null };
    worker.on("message", (msg: { id: number; hash?: string; error?: string }) => {
      const task = thread.busy;
      if (!task || task.id !== msg.id) return;
      thread.busy = null;
      worker.unref();
      if (msg.hash !== undefined) {
        this.done++;
        task.resolve(msg.hash);
      } else task.reject(new Error(msg.error ?? "password hash failed"));
      this.dispatch();
    });
    // A thread that dies takes its task with it; the next hash starts a new one.
    const lost = (err: Error) => {
      const i = this.threads.indexOf(thread);
      if (i !== -1) this.threads.splice(i, 1);
      thread.busy?.reject(err);
      thread.busy = null;
      if (!this.closed) this.dispatch();
    };
    worker.on("error", lost);
    worker.on("exit", (code) => lost(new Error(`password hash thread exited (${code})`)));
    this.threads.push(thread);
    return thread;
  }
}
