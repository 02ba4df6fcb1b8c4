// The click journal on a real file system: a click written before its answer survives the process
// being killed, is replayed once on the next start, and is forgotten once it is safe elsewhere.
import { spawn } from "node:child_process";
import { appendFileSync, readdirSync, readlinkSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import type { ClickEvent } from "@kurz/contracts";
import { waitFor } from "@kurz/testing";
import { describe, expect, it } from "vitest";
import { numberedClick } from "../test/support/records.ts";
import { useTempDirs } from "../test/support/temp-dirs.ts";
import { ClickJournal } from "./click-journal.ts";

const tempDir = useTempDirs("journal-test");

/** How many segments in `dir` this process holds open (Linux: /proc/self/fd). */
const openFilesIn = (dir: string) =>
  readdirSync("/proc/self/fd").filter((fd) => {
    try {
      const file = readlinkSync(`/proc/self/fd/${fd}`);
      return file.startsWith(`${dir}/`) && file.endsWith(".jsonl");
    } catch {
      return false; // closed since the listing
    }
  }).length;

const click = (n: number) => numberedClick(n, { ip: "203.0.113.7", user_agent: "Mozilla/5.0" });
const ids = (events: ClickEvent[]) => events.map((e) => Number(e.click_id.slice(-12)));
const segments = (dir: string) => readdirSync(dir).filter((n) => n.endsWith(".jsonl"));

describe("ClickJournal across restarts", () => {
  it("replays on the next start every click that was written and never confirmed", async () => {
    const dir = tempDir();
    let clock = 0;
    const { journal, replay } = await ClickJournal.open({ dir, now: () => clock });
    expect(replay).toEqual([]);
    const events = [1, 2, 3, 4, 5, 6].map(click);
    // Segment 1: clicks 1-2, all confirmed, so it is gone. Segment 2: clicks 3-5, only 4 confirmed.
    // Segment 3 (still open at the end): click 6, unconfirmed.
    for (const e of events.slice(0, 2)) journal.append(e);
    clock += 1_500;
    journal.writeTurn();
    for (const e of events.slice(2, 5)) journal.append(e);
    clock += 1_500;
    journal.writeTurn();
    journal.append(events[5]!);
    journal.writeTurn();
    journal.confirm([events[0]!, events[1]!, events[3]!]);
    journal.confirm([click(99)]); // unknown clicks are ignored
    expect(journal.outstanding).toBe(3);
    await journal.close();

    const reopened = await ClickJournal.open({ dir });
    // A segment is a file appended to: a confirmed click (4) in a segment still holding unconfirmed
    // ones is replayed too, and ingest keeps it once by its click id.
    expect(ids(reopened.replay)).toEqual([3, 4, 5, 6]);
    await reopened.journal.close();
  });

  it("skips a torn last line and keeps the whole ones", async () => {
    const dir = tempDir();
    const { journal } = await ClickJournal.open({ dir });
    journal.append(click(1));
    journal.writeTurn();
    await journal.close();
    const [segment] = segments(dir);
    appendFileSync(join(dir, segment!), '{"v":1,"click_id":"0190a1b2-00');
    const reopened = await ClickJournal.open({ dir });
    expect(ids(reopened.replay)).toEqual([1]);
    await reopened.journal.close();
  });

  it("keeps every written click of a process killed with SIGKILL", async () => {
    const dir = tempDir();
    // A child journals 500 clicks in turns of 50, says so, and waits to be killed.
    const script = `
      const { ClickJournal } = await import(${JSON.stringify(resolve(import.meta.dirname, "click-journal.ts"))});
      const { journal } = await ClickJournal.open({ dir: ${JSON.stringify(dir)} });
      for (let t = 0; t < 10; t++) {
        for (let i = 0; i < 50; i++) {
          const n = String(t * 50 + i + 1).padStart(12, "0");
          journal.append({ ...${JSON.stringify(click(0))}, click_id: "0190a1b2-0000-7000-8000-" + n });
        }
        journal.writeTurn();
      }
      process.stdout.write("written\\n");
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise<void>((res, rej) => {
      child.stdout.on("data", (d: Buffer) => d.toString().includes("written") && res());
      child.once("exit", (code) => rej(new Error(`child exited ${code}`)));
    });
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));

    const { journal, replay } = await ClickJournal.open({ dir }); // takes over the dead process's lock
    expect(ids(replay)).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
    expect(replay[0]).toEqual(click(1));
    await journal.close();
  });

  it("refuses a journal another live process holds", async () => {
    const dir = tempDir();
    const { journal } = await ClickJournal.open({ dir });
    // The same process re-opening is allowed (a restart in-process); another pid is not.
    const lock = join(dir, "journal.lock");
    rmSync(lock);
    appendFileSync(lock, String(process.ppid));
    await expect(ClickJournal.open({ dir })).rejects.toThrow(/held by running process/);
    await journal.close();
  });
});

describe("ClickJournal's segments", () => {
  it("deletes a segment once every click in it is confirmed and it is no longer written", async () => {
    const dir = tempDir();
    let clock = 0;
    const { journal } = await ClickJournal.open({ dir, now: () => clock });
    const first = [click(1), click(2)];
    for (const e of first) journal.append(e);
    clock += 1_500;
    journal.writeTurn(); // written, then the segment is old enough to rotate
    expect(segments(dir)).toHaveLength(2);
    journal.confirm(first);
    await waitFor(() => segments(dir).length === 1, { description: "the confirmed segment removed" });
    await journal.close(); // the open segment holds nothing unconfirmed: nothing is left
    expect(segments(dir)).toEqual([]);
  });

  it("does not keep a click whose publish landed before its turn was written", async () => {
    const dir = tempDir();
    const { journal } = await ClickJournal.open({ dir });
    const early = click(1);
    journal.append(early);
    journal.confirm([early]);
    journal.writeTurn();
    expect(journal.outstanding).toBe(0);
    await journal.close();
    expect((await ClickJournal.open({ dir })).replay).toEqual([]);
  });

  it("syncs a segment before closing it when sync and rotation fall due in one turn", async () => {
    const dir = tempDir();
    let clock = 0;
    const errors: unknown[] = [];
    const { journal } = await ClickJournal.open({ dir, now: () => clock, onError: (e) => errors.push(e) });
    for (let turn = 0; turn < 50; turn++) {
      journal.append(click(turn));
      clock += 1_000; // each turn: the sync interval and the rotation both due
      journal.writeTurn();
    }
    // Each rotation syncs and closes its segment in the background: once only the open segment is held
    // open, and the callbacks of the last closes have had their turn, every sync and close has reported.
    await waitFor(() => openFilesIn(dir) === 1, { description: "the rotated segments closed" });
    await new Promise((r) => setImmediate(r));
    expect(errors).toEqual([]);
    journal.confirm([0, 1, 2].map((n) => click(n)));
    await journal.close();
    const reopened = await ClickJournal.open({ dir });
    expect(reopened.replay).toHaveLength(50);
    await reopened.journal.close();
  });
});
