// Import files are read and their rows checked on threads of their own (import-file-thread.ts), not
// on the event loop that serves every request of the service: reading a file of 200,000 rows takes
// about a second of CPU, and checking its rows a few hundred milliseconds more, each of which held up
// every sign-in, redirect lookup and API call of the process while it ran. The threads run a little
// below the ones that serve requests (nice 5) and above the import's password hashes (nice 19).
// A job's rows are kept on the thread that read its file and come back one batch at a time when the
// job asks for them, the next batch checked while the current one commits.
//
// Threads start on first use and stop after IDLE_MS with no file open and no question pending: each is a
// V8 isolate of its own, holding tens of MB after a large file, which an import now and then should not
// keep for the life of the process (an idle thread keeps no process alive either way). A file goes to
// the thread with the fewest files being read, so a small upload is not read behind a large one while
// another thread is free.
import type { Worker } from "node:worker_threads";
import type { ImportFormat } from "@kurz/contracts";
import { startModuleThread } from "@kurz/service-kit";
import { ImportFileError } from "./import-file.ts";
import type { ThreadReply, ThreadRequest } from "./import-file-thread.ts";
import type { CheckedRow, CodeOptions } from "./import-rows.ts";

const READ_THREAD_NICE = 5;
/** How long a thread with nothing to do stays for the next file before it stops. */
const IDLE_MS = 15_000;

function startThread() {
  return startModuleThread({
    built: "import-file-thread.mjs",
    source: new URL("./import-file-thread.ts", import.meta.url),
    workerData: { nice: READ_THREAD_NICE },
  });
}

interface Pending {
  resolve: (reply: ThreadReply) => void;
  reject: (err: Error) => void;
}

interface Thread {
  worker: Worker;
  pending: Map<number, Pending>;
  /** Files being read on it (count and open requests not yet answered). */
  reading: number;
  /** Files opened on it and not closed: their rows are kept on the thread. */
  open: number;
  /** Stops the thread once it has been idle IDLE_MS. */
  idle: NodeJS.Timeout | null;
}

/** A job's file, read on a thread: its rows come back one batch at a time, in order. */
export interface ImportRowsReader {
  format: ImportFormat;
  /** Rows in the whole file (including those before `from`). */
  total: number;
  /** The next batch of checked rows; empty once the file is done. */
  next(): Promise<CheckedRow[]>;
  /** Frees the rows the thread keeps. */
  close(): void;
}

export class ImportFileThreads {
  private readonly threads: Thread[] = [];
  private nextId = 0;

  constructor(
    private readonly size: number,
    /** How long a thread with nothing to do waits for the next file before it stops. */
    private readonly idleMs = IDLE_MS,
  ) {
    if (!Number.isInteger(size) || size < 1) throw new Error("import file threads need at least one thread");
  }

  /** Threads running now. */
  get running(): number {
    return this.threads.length;
  }

  /** The file's format and number of rows; ImportFileError when it cannot be read. */
  async count(
    file: Uint8Array,
    format: ImportFormat | "auto",
  ): Promise<{ format: ImportFormat; total: number }> {
    const thread = this.pick();
    const reply = await this.ask(thread, { kind: "count", id: this.nextId++, file, format }, true);
    if (!("total" in reply)) throw new Error("unexpected reply from an import file thread");
    return { format: reply.format, total: reply.total };
  }

  /** Reads the file and hands its rows from row `from` (0-based) in batches of `batchSize`. */
  async open(
    file: Uint8Array,
    format: ImportFormat | "auto",
    opts: { from: number; batchSize: number; codes: CodeOptions },
  ): Promise<ImportRowsReader> {
    const thread = this.pick();
    const session = this.nextId++;
    const reply = await this.ask(
      thread,
      { kind: "open", id: this.nextId++, session, file, format, ...opts },
      true,
    );
    if (!("total" in reply)) throw new Error("unexpected reply from an import file thread");
    thread.open++;
    const fetchNext = async () => {
      const batch = await this.ask(thread, { kind: "next", id: this.nextId++, session }, false);
      if (!("rows" in batch)) throw new Error("unexpected reply from an import file thread");
      return batch.rows;
    };
    let closed = false;
    // One batch asked ahead: the thread checks it while the job works on the one before.
    let ahead: Promise<CheckedRow[]> | null = null;
    return {
      format: reply.format,
      total: reply.total,
      next: () => {
        const batch = ahead ?? fetchNext();
        ahead = fetchNext();
        ahead.catch(() => {}); // its failure is the next call's to throw
        return batch;
      },
      close: () => {
        if (closed) return;
        closed = true;
        thread.open--;
        if (this.threads.includes(thread)) {
          thread.worker.postMessage({ kind: "close", session } satisfies ThreadRequest);
          this.idleLater(thread);
        }
      },
    };
  }

  /** Stops the threads; what they were asked and have not answered is rejected. */
  async close(): Promise<void> {
    const threads = this.threads.splice(0);
    for (const t of threads) if (t.idle) clearTimeout(t.idle);
    await Promise.all(threads.map((t) => t.worker.terminate()));
  }

  /** The thread with the fewest files being read; a new one while there is room and none is idle. */
  private pick(): Thread {
    const least = this.threads.reduce<Thread | undefined>(
      (best, t) => (best === undefined || t.reading < best.reading ? t : best),
      undefined,
    );
    if (least && (least.reading === 0 || this.threads.length >= this.size)) return least;
    return this.spawn();
  }

  private ask(
    thread: Thread,
    req: Exclude<ThreadRequest, { kind: "close" }>,
    reads: boolean,
  ): Promise<ThreadReply> {
    if (thread.idle) {
      clearTimeout(thread.idle);
      thread.idle = null;
    }
    return new Promise<ThreadReply>((resolve, reject) => {
      if (reads) thread.reading++;
      const done = () => {
        if (reads) thread.reading--;
      };
      thread.pending.set(req.id, {
        resolve: (reply) => {
          done();
          if ("fileError" in reply) reject(new ImportFileError(reply.fileError));
          else if ("error" in reply) reject(new Error(reply.error));
          else resolve(reply);
        },
        reject: (err) => {
          done();
          reject(err);
        },
      });
      // A thread with a question to answer keeps the process alive (its caller awaits it).
      thread.worker.ref();
      // The file is copied to the thread (the caller keeps its own): a memory copy, not a parse.
      thread.worker.postMessage(req);
    });
  }

  /** Stops `thread` after IDLE_MS unless it is asked something or keeps a file's rows meanwhile. */
  private idleLater(thread: Thread): void {
    if (thread.pending.size > 0 || thread.open > 0 || thread.reading > 0 || thread.idle) return;
    thread.idle = setTimeout(() => {
      thread.idle = null;
      const i = this.threads.indexOf(thread);
      if (i === -1 || thread.pending.size > 0 || thread.open > 0) return;
      this.threads.splice(i, 1);
      void thread.worker.terminate();
    }, this.idleMs);
    thread.idle.unref();
  }

  private spawn(): Thread {
    const worker = startThread();
    worker.unref();
    const thread: Thread = { worker, pending: new Map(), reading: 0, open: 0, idle: null };
    worker.on("message", (reply: ThreadReply) => {
      const p = thread.pending.get(reply.id);
      if (!p) return;
      thread.pending.delete(reply.id);
      if (thread.pending.size === 0) worker.unref();
      p.resolve(reply);
      this.idleLater(thread);
    });
    // A thread that dies takes what it was asked with it (a job's run then fails and resumes later);
    // the next request starts a new one.
    const lost = (err: Error) => {
      const i = this.threads.indexOf(thread);
      if (i !== -1) this.threads.splice(i, 1);
      if (thread.idle) clearTimeout(thread.idle);
      for (const p of thread.pending.values()) p.reject(err);
      thread.pending.clear();
    };
    worker.on("error", lost);
    worker.on("exit", (code) => lost(new Error(`import file thread exited (${code})`)));
    this.threads.push(thread);
    return thread;
  }
}

/** The process's threads for import files (two: the worker runs two jobs at once by default). */
let shared: ImportFileThreads | undefined;
export const importFileThreads = (): ImportFileThreads => {
  shared ??= new ImportFileThreads(2);
  return shared;
};
