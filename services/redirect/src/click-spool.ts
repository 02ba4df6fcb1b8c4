// The disk overflow of the click publisher: while the bus is down and the in-memory buffer is full,
// click events are appended here, one JSON line each, and replayed in order when the bus returns.
//
// Durability: lines are queued in memory and appended in one write at most SPOOL_WRITE_MS later,
// followed by fdatasync, so a crash of the process loses at most that window (the in-memory buffer is
// lost in a crash anyway) and an OS crash loses nothing that was synced. Replay is at-least-once: the
// read position is kept in memory only, so after a crash mid-replay the file is replayed again from
// the start and ClickHouse deduplicates the click ids.
import { constants } from "node:fs";
import { type FileHandle, mkdir, open, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ClickEvent } from "@kurz/contracts";

const SPOOL_WRITE_MS = 100;
const READ_CHUNK = 1024 * 1024;
const NEWLINE = 0x0a;

export class ClickSpool {
  private queued: string[] = [];
  private queuedBytes = 0;
  private fileBytes = 0;
  private fileLines = 0;
  private readOffset = 0;
  private readLines = 0;
  private chain: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  dropped = 0;

  private constructor(
    private fh: FileHandle,
    private readonly path: string,
    private readonly lockPath: string,
    private readonly maxBytes: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  /**
   * Opens (or creates) `dir/name`, taking a lock file so that two processes cannot interleave one
   * spool; a lock left by a dead process is taken over.
   */
  static async open(opts: {
    dir: string;
    /** Default clicks.spool. */
    name?: string;
    maxBytes: number;
    onError?: (err: unknown) => void;
  }): Promise<ClickSpool> {
    await mkdir(opts.dir, { recursive: true });
    const path = join(opts.dir, opts.name ?? "clicks.spool");
    const lockPath = `${path}.lock`;
    await takeLock(lockPath);
    const fh = await open(path, constants.O_RDWR | constants.O_CREAT | constants.O_APPEND);
    const spool = new ClickSpool(fh, path, lockPath, opts.maxBytes, opts.onError ?? (() => {}));
    let { size } = await fh.stat();
    if (size > 0) {
      const last = Buffer.alloc(1);
      await fh.read(last, 0, 1, size - 1);
      // A line torn by a crash: end it, so the next append does not glue onto it (it is then skipped).
      if (last[0] !== NEWLINE) {
        await fh.write("\n");
        size++;
      }
    }
    spool.fileBytes = size;
    spool.fileLines = size === 0 ? 0 : await countLines(path);
    return spool;
  }

  /** The spool file's size plus what is queued for it. */
  get bytes(): number {
    return this.fileBytes + this.queuedBytes;
  }

  get pending(): number {
    return this.fileLines - this.readLines + this.queued.length;
  }

  /** Queues events for the file; false when the spool is full (the caller counts the drop). */
  append(event: ClickEvent): boolean {
    const line = `${JSON.stringify(event)}\n`;
    const bytes = Buffer.byteLength(line);
    if (this.closed || this.fileBytes + this.queuedBytes + bytes > this.maxBytes) return false;
    this.queued.push(line);
    this.queuedBytes += bytes;
    if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = null;
        void this.writeQueued();
      }, SPOOL_WRITE_MS);
      this.timer.unref();
    }
    return true;
  }

  /** Appends what is queued to the file and syncs it. */
  writeQueued(): Promise<void> {
    return this.serial(async () => {
      if (this.queued.length === 0) return;
      const lines = this.queued;
      const bytes = this.queuedBytes;
      this.queued = [];
      this.queuedBytes = 0;
      try {
        await this.fh.write(lines.join(""));
        await this.fh.datasync();
        this.fileBytes += bytes;
        this.fileLines += lines.length;
      } catch (err) {
        this.dropped += lines.length;
        this.onError(err);
      }
    });
  }

  /**
   * The next events after the read position, oldest first. Call commit() with the returned position
   * once they are published; until then the same events come back.
   */
  readBatch(max: number): Promise<{ events: ClickEvent[]; next: number; lines: number }> {
    return this.serial(async () => {
      const events: ClickEvent[] = [];
      let next = this.readOffset;
      let lines = 0;
      if (this.readOffset >= this.fileBytes) return { events, next, lines };
      const length = Math.min(READ_CHUNK, this.fileBytes - this.readOffset);
      const buf = Buffer.allocUnsafe(length);
      const { bytesRead } = await this.fh.read(buf, 0, length, this.readOffset);
      let start = 0;
      while (lines < max) {
        const end = buf.indexOf(NEWLINE, start);
        if (end === -1 || end >= bytesRead) break;
        lines++;
        try {
          events.push(JSON.parse(buf.toString("utf8", start, end)) as ClickEvent);
        } catch {
          // A line torn by a crash mid-write: it cannot be replayed.
          this.dropped++;
        }
        start = end + 1;
      }
      if (lines === 0 && bytesRead > 0) {
        // No newline in a whole chunk: a torn tail. Skip it so replay cannot stall on it.
        this.dropped++;
        return { events, next: this.readOffset + bytesRead, lines: 1 };
      }
      next = this.readOffset + start;
      return { events, next, lines };
    });
  }

  commit(next: number, lines: number): void {
    this.readOffset = next;
    this.readLines += lines;
  }

  /** Empties the file once everything in it was replayed, so it never grows across outages. */
  truncateIfDrained(): Promise<void> {
    return this.serial(async () => {
      if (this.readOffset < this.fileBytes || this.queued.length > 0 || this.fileBytes === 0) return;
      await this.fh.truncate(0);
      await this.fh.datasync();
      this.fileBytes = this.fileLines = this.readOffset = this.readLines = 0;
    });
  }

  /**
   * Puts older events in front of everything unreplayed (on shutdown, the in-memory buffer is older
   * than the spool). Rewrites the file through a temporary one and a rename, so a crash leaves either
   * the old or the new file.
   */
  prepend(events: ClickEvent[]): Promise<void> {
    return this.serial(async () => {
      if (events.length === 0) return;
      const unread = Buffer.alloc(this.fileBytes - this.readOffset);
      if (unread.length > 0) await this.fh.read(unread, 0, unread.length, this.readOffset);
      const head = events.map((e) => `${JSON.stringify(e)}\n`).join("");
      const tail = this.queued.join("");
      const tmp = `${this.path}.tmp`;
      await writeFile(tmp, Buffer.concat([Buffer.from(head), unread, Buffer.from(tail)]), { flush: true });
      await rename(tmp, this.path);
      // The handle still points at the replaced file; reopen to write to the new one.
      await this.fh.close();
      const fh = await open(this.path, constants.O_RDWR | constants.O_APPEND);
      this.fh = fh;
      this.fileLines = this.fileLines - this.readLines + events.length + this.queued.length;
      this.fileBytes = (await fh.stat()).size;
      this.readOffset = this.readLines = 0;
      this.queued = [];
      this.queuedBytes = 0;
    });
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.writeQueued();
    await this.truncateIfDrained();
    this.closed = true;
    await this.serial(async () => {
      await this.fh.close();
      // An empty spool is not worth keeping: the directory then lists only spools with clicks to replay.
      if (this.fileBytes === 0) await unlink(this.path).catch(() => {});
    });
    await unlink(this.lockPath).catch(() => {});
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn);
    this.chain = run.catch(() => {});
    return run;
  }
}

async function countLines(path: string): Promise<number> {
  const data = await readFile(path);
  let n = 0;
  for (let i = data.indexOf(NEWLINE); i !== -1; i = data.indexOf(NEWLINE, i + 1)) n++;
  return n;
}

/** Takes `lockPath` for this process; a lock left by a dead process is taken over. */
export async function takeLock(lockPath: string): Promise<void> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(lockPath, String(process.pid), { flag: "wx" });
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const owner = Number(await readFile(lockPath, "utf8").catch(() => ""));
      if (owner && owner !== process.pid && isAlive(owner)) {
        throw new Error(
          `spool ${lockPath} is held by running process ${owner}: give each redirect instance its own SPOOL_DIR`,
        );
      }
      await unlink(lockPath).catch(() => {});
    }
  }
  throw new Error(`could not take the spool lock ${lockPath}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
