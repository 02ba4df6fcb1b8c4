import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { numberedClick } from "../test/support/records.ts";
import { useTempDirs } from "../test/support/temp-dirs.ts";
import { ClickSpool } from "./click-spool.ts";

const tempDir = useTempDirs("spool-test");
const click = (n: number) => numberedClick(n);

async function drain(spool: ClickSpool): Promise<number[]> {
  const out: number[] = [];
  for (;;) {
    const { events, next, lines } = await spool.readBatch(2);
    if (lines === 0) return out;
    out.push(...events.map((e) => Number(e.click_id.slice(-12))));
    spool.commit(next, lines);
  }
}

describe("ClickSpool", () => {
  it("replays appended events in order, then truncates the file", async () => {
    const dir = tempDir();
    const spool = await ClickSpool.open({ dir, maxBytes: 1e6 });
    for (let i = 1; i <= 5; i++) expect(spool.append(click(i))).toBe(true);
    await spool.writeQueued();
    expect(spool.pending).toBe(5);
    expect(await drain(spool)).toEqual([1, 2, 3, 4, 5]);
    await spool.truncateIfDrained();
    expect(spool.pending).toBe(0);
    expect(readFileSync(join(dir, "clicks.spool")).length).toBe(0);
    await spool.close();
  });

  it("refuses events past maxBytes so the caller can count them", async () => {
    const spool = await ClickSpool.open({ dir: tempDir(), maxBytes: 600 });
    expect(spool.append(click(1))).toBe(true);
    expect(spool.append(click(2))).toBe(true);
    expect(spool.append(click(3))).toBe(false);
    await spool.close();
  });

  it("puts older events first with prepend, and a new process replays what the last one left", async () => {
    const dir = tempDir();
    const first = await ClickSpool.open({ dir, maxBytes: 1e6 });
    first.append(click(3));
    first.append(click(4));
    await first.writeQueued();
    await first.prepend([click(1), click(2)]);
    await first.close();

    const second = await ClickSpool.open({ dir, maxBytes: 1e6 });
    expect(second.pending).toBe(4);
    expect(await drain(second)).toEqual([1, 2, 3, 4]);
    await second.close();
  });

  it("skips a line torn by a crash and counts it as dropped", async () => {
    const dir = tempDir();
    const path = join(dir, "clicks.spool");
    appendFileSync(path, `${JSON.stringify(click(1))}\n${JSON.stringify(click(2)).slice(0, 40)}`);
    const spool = await ClickSpool.open({ dir, maxBytes: 1e6 });
    spool.append(click(3));
    await spool.writeQueued();
    expect(await drain(spool)).toEqual([1, 3]);
    expect(spool.dropped).toBe(1);
    expect(spool.pending).toBe(0);
    await spool.close();
  });

  it("refuses a directory whose spool a live process holds", async () => {
    const dir = tempDir();
    const held = await ClickSpool.open({ dir, maxBytes: 1e6 });
    // The lock names this very process; a second instance must not share the file.
    appendFileSync(join(dir, "other.spool.lock"), String(process.ppid));
    await expect(ClickSpool.open({ dir, name: "other.spool", maxBytes: 1e6 })).rejects.toThrow(
      /held by running process/,
    );
    await held.close();
  });
});
