// useMemoryTmpdir moves the tests' scratch files to a memory file system, and leaves TMPDIR alone
// where that is not possible or not wanted.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statfsSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { TMPFS_MAGIC, useMemoryTmpdir } from "../src/memory-tmpdir.ts";

const shm = "/dev/shm";
// The project's own .data, on disk wherever the clone is (this test's own tmpdir() is /dev/shm's).
const onDisk = join(import.meta.dirname, "../../../.data");
mkdirSync(onDisk, { recursive: true });
const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("useMemoryTmpdir", () => {
  it.runIf(existsSync(shm))(
    "points TMPDIR at a run's own directory on /dev/shm when TMPDIR is unset (skipped: no /dev/shm)",
    () => {
      const env: NodeJS.ProcessEnv = {};
      const dir = useMemoryTmpdir({ env }) as string;
      made.push(dir);
      expect(dir.startsWith(join(shm, "kurz-test", "run-"))).toBe(true);
      expect(env.TMPDIR).toBe(dir);
      expect(statSync(dir).mode & 0o777).toBe(0o755);
      // Port claims stay shared between runs; a second run gets a directory of its own.
      expect(env.KURZ_PORT_CLAIMS_DIR).toBe(join(shm, "kurz-test", "kurz-port-claims"));
      const other = useMemoryTmpdir({ env: {} }) as string;
      made.push(other);
      expect(other).not.toBe(dir);
    },
  );

  it("keeps a TMPDIR that is already set, and does nothing when turned off", () => {
    const own: NodeJS.ProcessEnv = { TMPDIR: "/somewhere/else" };
    expect(useMemoryTmpdir({ env: own })).toBeUndefined();
    expect(own.TMPDIR).toBe("/somewhere/else");
    const off: NodeJS.ProcessEnv = { KURZ_TEST_TMPDIR: "disk" };
    expect(useMemoryTmpdir({ env: off })).toBeUndefined();
    expect(off.TMPDIR).toBeUndefined();
  });

  it.runIf(statfsSync(onDisk).type !== TMPFS_MAGIC)(
    "leaves TMPDIR unset where the mount is not a memory file system, or is missing (skipped: the clone is on tmpfs)",
    () => {
      const disk = mkdtempSync(join(onDisk, "not-tmpfs-"));
      made.push(disk);
      for (const mount of [disk, join(disk, "missing")]) {
        const env: NodeJS.ProcessEnv = {};
        expect(useMemoryTmpdir({ env, mount })).toBeUndefined();
        expect(env.TMPDIR).toBeUndefined();
      }
      expect(existsSync(join(disk, "kurz-test"))).toBe(false);
    },
  );

  it.runIf(existsSync(shm))(
    "removes what a killed run left there a day ago, and keeps what is recent (skipped: no /dev/shm)",
    () => {
      const root = join(shm, "kurz-test");
      mkdirSync(root, { recursive: true });
      const old = mkdtempSync(join(root, "kurz-chdb-"));
      const recent = mkdtempSync(join(root, "kurz-chdb-"));
      made.push(old, recent);
      writeFileSync(join(old, "part"), "x");
      // Two days before `recent` by the file system's clock, which the ages are judged by (not this
      // process's, which a faked clock moves).
      const twoDaysAgo = new Date(statSync(recent).mtimeMs - 2 * 24 * 60 * 60_000);
      utimesSync(old, twoDaysAgo, twoDaysAgo);
      made.push(useMemoryTmpdir({ env: {} }) as string);
      expect(existsSync(old)).toBe(false);
      expect(existsSync(recent)).toBe(true);
    },
  );
});
