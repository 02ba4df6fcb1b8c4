// The click journal (no click lost on SIGKILL, docs/reliability.md): every click is on disk before its
// redirect is answered. Each event-loop turn's clicks are appended to the current segment in one write, just
// before that turn's answers are written (turn-writes.ts), and a segment is deleted once every click in
// it is safe elsewhere: published on the bus, or synced to the spool. On start, what the segments still
// hold is replayed through the publisher; a click both journaled and already published is published
// again, and ingest keeps it once by its click id (exactly once end to end, decision 0049).
//
// What a write survives: the process dying in any way (the bytes are in the kernel's page cache). What
// it does not: the machine losing power or crashing within `syncIntervalMs` of the write, since the
// segment is fdatasync'ed on that interval rather than on every turn (docs/reliability.md).
import { close, closeSync, fdatasync, openSync, writeSync } from "node:fs";
import { mkdir, readdir, readFile, unlink } from "node:fs/promises";
import { join } from "node:path";
import { type ClickEvent, ClickEvent as ClickEventSchema } from "@kurz/contracts";
import { takeLock } from "./click-spool.ts";

/** A segment is closed, and a new one begun, once it is this old and holds clicks. */
const ROTATE_MS = 1_000;
const SEGMENT = /^(\d+)\.jsonl$/;

export interface JournalOptions {
  /** One journal per instance: e.g. SPOOL_DIR/journal-<port>. */
  dir: string;
  /** fdatasync of the open segment at most this often (bounds what a machine crash can lose). */
  syncIntervalMs?: number;
  onError?: (err: unknown) => void;
  now?: () => number;
}

interface Segment {
  id: number;
  /** Clicks written to it (or replayed from it) not yet confirmed. */
  outstanding: number;
  /** No more clicks go to it: it can be deleted once `outstanding` is 0. */
  closed: boolean;
}

export class ClickJournal {
  private pending: string[] = [];
  private pendingEvents: ClickEvent[] = [];
  private readonly segments = new Map<number, Segment>();
  private readonly segmentOf = new WeakMap<ClickEvent, Segment>();
  /** Confirmed before this turn's write (a publish can land first): not counted when written. */
  private readonly confirmedEarly = new WeakSet<ClickEvent>();
  private current!: Segment;
  private fd = -1;
  private openedAt = 0;
  private lastSync = 0;
  private closedForGood = false;
  /** Clicks lost because a write failed (counted, reported through onError). */
  lost = 0;

  private constructor(
    private readonly dir: string,
    private readonly opts: JournalOptions,
  ) {}

  /**
   * Opens the journal in `dir` (taking its lock) and returns the clicks a previous run left in it, to be
   * published again; they stay on disk until confirmed like any other.
   */
  static async open(opts: JournalOptions): Promise<{ journal: ClickJournal; replay: ClickEvent[] }> {
    await mkdir(opts.dir, { recursive: true });
    await takeLock(join(opts.dir, "journal.lock"));
    const journal = new ClickJournal(opts.dir, opts);
    const replay: ClickEvent[] = [];
    let last = 0;
    const names = (await readdir(opts.dir)).filter((n) => SEGMENT.test(n));
    for (const name of names.sort((a, b) => Number(SEGMENT.exec(a)![1]) - Number(SEGMENT.exec(b)![1]))) {
      const id = Number(SEGMENT.exec(name)![1]);
      last = Math.max(last, id);
      const segment: Segment = { id, outstanding: 0, closed: true };
      for (const line of (await readFile(join(opts.dir, name), "utf8")).split("\n")) {
        // A torn last line (the process died inside a write) is skipped: its click was never answered.
        const parsed = line === "" ? null : ClickEventSchema.safeParse(safeJson(line));
        if (!parsed?.success) continue;
        journal.segmentOf.set(parsed.data, segment);
        segment.outstanding++;
        replay.push(parsed.data);
      }
      journal.segments.set(id, segment);
      if (segment.outstanding === 0) await journal.remove(segment);
    }
    journal.begin(last + 1);
    return { journal, replay };
  }

  private now(): number {
    return this.opts.now?.() ?? Date.now();
  }

  private begin(id: number): void {
    this.current = { id, outstanding: 0, closed: false };
    this.segments.set(id, this.current);
    this.fd = openSync(join(this.dir, `${id}.jsonl`), "a");
    this.openedAt = this.now();
  }

  /** Queues a click for this turn's write. */
  append(event: ClickEvent): void {
    if (this.closedForGood) return;
    this.pending.push(`${JSON.stringify(event)}\n`);
    this.pendingEvents.push(event);
  }

  /** Writes the turn's clicks in one write; call before the turn's answers are written. */
  writeTurn(): void {
    if (this.pending.length === 0) return;
    const text = this.pending.join("");
    const events = this.pendingEvents;
    this.pending = [];
    this.pendingEvents = [];
    const segment = this.current;
    try {
      writeSync(this.fd, text);
      for (const e of events) {
        if (this.confirmedEarly.has(e)) continue;
        this.segmentOf.set(e, segment);
        segment.outstanding++;
      }
      const now = this.now();
      if (now - this.openedAt >= ROTATE_MS) {
        // Rotation syncs the segment it closes.
        this.rotate();
        this.lastSync = now;
      } else if (now - this.lastSync >= (this.opts.syncIntervalMs ?? 1_000)) {
        fdatasync(this.fd, (err) => err && this.opts.onError?.(err));
        this.lastSync = now;
      }
    } catch (err) {
      // The clicks still go to the bus; only their protection against a crash is lost.
      this.lost += events.length;
      this.opts.onError?.(err);
    }
  }

  private rotate(): void {
    const old = this.current;
    old.closed = true;
    const fd = this.fd;
    this.begin(old.id + 1);
    // Synced, then closed, off the hot path. Closing at once would race a sync still queued on the
    // thread pool (EBADF under load, and the segment's last writes unsynced).
    fdatasync(fd, (err) => {
      if (err) this.opts.onError?.(err);
      close(fd, (closeErr) => closeErr && this.opts.onError?.(closeErr));
    });
    if (old.outstanding === 0) void this.remove(old);
  }

  /** These clicks are safe elsewhere (on the bus, or synced to the spool): the journal may forget them. */
  confirm(events: readonly ClickEvent[]): void {
    for (const e of events) {
      const segment = this.segmentOf.get(e);
      if (!segment) {
        this.confirmedEarly.add(e);
        continue;
      }
      this.segmentOf.delete(e);
      segment.outstanding--;
      if (segment.outstanding === 0 && segment.closed) void this.remove(segment);
    }
  }

  /** Clicks journaled and not yet confirmed (for metrics and tests). */
  get outstanding(): number {
    let n = 0;
    for (const s of this.segments.values()) n += s.outstanding;
    return n;
  }

  private async remove(segment: Segment): Promise<void> {
    this.segments.delete(segment.id);
    await unlink(join(this.dir, `${segment.id}.jsonl`)).catch((err: unknown) => this.opts.onError?.(err));
  }

  /** Writes what is queued and closes; unconfirmed clicks stay on disk for the next start. */
  async close(): Promise<void> {
    if (this.closedForGood) return;
    this.writeTurn();
    this.closedForGood = true;
    const current = this.current;
    current.closed = true;
    closeSync(this.fd);
    if (current.outstanding === 0) await this.remove(current);
    await unlink(join(this.dir, "journal.lock")).catch(() => {});
  }
}

function safeJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return null;
  }
}
