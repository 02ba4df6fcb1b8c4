// The key a template is named by: the same for the same files, another one for any change to them.
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { filesKey } from "../src/files-key.ts";

const dir = mkdtempSync(join(tmpdir(), "kurz-files-key-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("changes with a file's content, its name, a file in a subdirectory, and the extra parts only", () => {
  mkdirSync(join(dir, "20260101_init"));
  writeFileSync(join(dir, "20260101_init", "migration.sql"), "CREATE TABLE a (id int);");
  writeFileSync(join(dir, "0001_b.sql"), "CREATE TABLE b (id int);");
  const first = filesKey(dir);
  expect(first).toMatch(/^[0-9a-f]{16}$/);
  expect(filesKey(dir)).toBe(first);

  writeFileSync(join(dir, "20260101_init", "migration.sql"), "CREATE TABLE a (id bigint);");
  const edited = filesKey(dir);
  expect(edited).not.toBe(first);

  renameSync(join(dir, "0001_b.sql"), join(dir, "0002_b.sql"));
  const renamed = filesKey(dir);
  expect(renamed).not.toBe(edited);

  expect(filesKey(dir, "chdb@3.4.0")).not.toBe(renamed);
  expect(filesKey(dir, "chdb@3.4.0")).not.toBe(filesKey(dir, "chdb@3.5.0"));
});
