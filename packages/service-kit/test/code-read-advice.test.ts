import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  adviseCodeRandomAccess,
  dropUnmappedPages,
  EXEC_READ_BYTES,
  pageOutCode,
} from "../src/code-read-advice.ts";

interface Vma {
  start: number;
  end: number;
  perms: string;
  path: string;
  flags: string[];
  fileKb: number;
}

const ownVmas = (): Vma[] =>
  readFileSync("/proc/self/smaps", "utf8")
    .split(/\n(?=[0-9a-f]+-[0-9a-f]+ )/)
    .map((block) => {
      const [head = ""] = block.split("\n");
      const fields = head.trim().split(/\s+/);
      const [start = 0, end = 0] = (fields[0] ?? "").split("-").map((hex) => Number.parseInt(hex, 16));
      return {
        start,
        end,
        perms: fields[1] ?? "",
        path: fields.slice(5).join(" "),
        flags:
          block
            .match(/^VmFlags:(.*)$/m)?.[1]
            ?.trim()
            .split(/\s+/) ?? [],
        // Resident pages of the file itself; a private mapping's written pages are anonymous.
        fileKb:
          Number(block.match(/^Rss:\s+(\d+)/m)?.[1] ?? 0) -
          Number(block.match(/^Anonymous:\s+(\d+)/m)?.[1] ?? 0),
      };
    });

const linux = process.platform === "linux";
const fincore = (() => {
  try {
    execFileSync("fincore", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!linux)("code read one page at a time (Linux only)", () => {
  it("marks every mapping of the node binary for random access, its code in chunks no fault reads past", async () => {
    const result = await adviseCodeRandomAccess();
    const node = realpathSync(process.execPath);
    expect(result.skipped).toBeUndefined();
    expect(result.files).toContain(node);
    const vmas = ownVmas().filter((v) => v.path === node);
    expect(vmas.length).toBeGreaterThan(0);
    for (const vma of vmas) expect(vma.flags).toContain("rr");
    const code = vmas.filter((v) => v.perms.includes("x"));
    const codeBytes = code.reduce((sum, v) => sum + v.end - v.start, 0);
    expect(codeBytes).toBeGreaterThan(4 * EXEC_READ_BYTES);
    for (const vma of code) expect(vma.end - vma.start).toBeLessThanOrEqual(EXEC_READ_BYTES);
  });

  const data = resolve(import.meta.dirname, "../../../.data");
  mkdirSync(data, { recursive: true });
  const dir = mkdtempSync(resolve(data, "read-advice-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reclaims the pages of a code file it names (a copy of koffi's addon, which only this process maps)", async () => {
    // Pages another process maps too are left alone, and the services of other tests load koffi: a
    // copy under a name of its own is this process's alone.
    await adviseCodeRandomAccess(); // loads koffi
    const addon = ownVmas().find((v) => v.path.endsWith("/koffi.node"))?.path;
    expect(addon).toBeDefined();
    const copy = resolve(dir, "koffi-copy.node");
    copyFileSync(addon ?? "", copy);
    process.dlopen({ exports: {} }, copy);
    const mapped = () => ownVmas().filter((v) => v.path === copy);
    const resident = () => mapped().reduce((sum, v) => sum + v.fileKb, 0);
    expect(resident()).toBeGreaterThan(0);
    expect(await pageOutCode(["koffi-copy.node"])).toBe(
      mapped().reduce((sum, v) => sum + v.end - v.start, 0),
    );
    expect(resident()).toBe(0);
    expect(await pageOutCode(["no-such-library.so"])).toBe(0);
  });

  // fincore (util-linux) reads what of a file is in the page cache; the file is on disk, not tmpfs,
  // whose pages are memory and never dropped.
  it.skipIf(!fincore)(
    "drops a file's unmapped pages from the page cache (skipped without util-linux's fincore)",
    async () => {
      const file = resolve(dir, "code.bin");
      writeFileSync(file, Buffer.alloc(4 * 2 ** 20, 7));
      execFileSync("sync");
      readFileSync(file);
      const cached = () =>
        Number(execFileSync("fincore", ["-b", "-n", "-o", "RES", file], { encoding: "utf8" }).trim());
      expect(cached()).toBeGreaterThan(0);
      expect(await dropUnmappedPages([file, resolve(dir, "missing.bin")])).toBe(1);
      expect(cached()).toBe(0);
    },
  );
});
