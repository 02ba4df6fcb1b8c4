import { afterEach, describe, expect, it, vi } from "vitest";
import { ImportFileThreads } from "./import-file-threads.ts";

const csv = (n: number) =>
  new TextEncoder().encode(
    `url\n${Array.from({ length: n }, (_, i) => `https://example.com/${i}`).join("\n")}\n`,
  );
const codes = { branded: false, renameReserved: null };

describe("import file threads", () => {
  let threads: ImportFileThreads | undefined;
  afterEach(() => threads?.close());

  it("stop once idle with no file open, and start again for the next file", async () => {
    threads = new ImportFileThreads(2, 1);
    const reader = await threads.open(csv(30), "auto", { from: 0, batchSize: 10, codes });
    expect(reader.total).toBe(30);
    let rows = 0;
    for (let batch = await reader.next(); batch.length > 0; batch = await reader.next()) rows += batch.length;
    expect(rows).toBe(30);
    // A file still open keeps its thread and its rows.
    expect(threads.running).toBe(1);
    reader.close();
    await vi.waitFor(() => expect(threads?.running).toBe(0), { timeout: 5_000 });
    const again = await threads.count(csv(5), "auto");
    expect(again).toEqual({ format: "csv", total: 5 });
  });

  it("keep a thread whose file stays open", async () => {
    threads = new ImportFileThreads(1, 1);
    const reader = await threads.open(csv(3), "auto", { from: 0, batchSize: 10, codes });
    expect((await reader.next()).length).toBe(3);
    // Another request goes through the same thread; once it is answered the thread has nothing
    // pending, but the open file's rows are still on it.
    await threads.count(csv(2), "auto");
    expect(threads.running).toBe(1);
    expect(await reader.next()).toEqual([]);
    reader.close();
  });
});
