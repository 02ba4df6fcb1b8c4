// Checks a copy of a continuity snapshot (docs/continuity.md): every file manifest.json lists is there
// with its SHA-256 and size, no file is there that it does not list, and, given the public key, that
// manifest.json.sig is the key's signature of the manifest. Reports every difference, not the first.
import type { KeyObject } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { filesUnder, readManifest, sha256 } from "./snapshot-manifest.ts";
import { manifestSignedBy, SIGNATURE_FILE } from "./snapshot-signature.ts";

export interface VerifyReport {
  /** Files listed and found intact. */
  files: number;
  /** Each difference, one sentence each; empty when the copy is intact (and signed, if a key was given). */
  problems: string[];
  /** `valid`, `invalid`, `missing` (a key was given, no signature), or `unchecked` (no key given). */
  signature: "valid" | "invalid" | "missing" | "unchecked";
}

export function verifySnapshot(dir: string, publicKey?: KeyObject): VerifyReport {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new Error(`${dir} is not a directory`);
  const manifest = readManifest(dir);
  if (manifest === null) throw new Error(`${dir} has no readable manifest.json: it is not a Kurz snapshot`);
  const problems: string[] = [];
  let intact = 0;
  const listed = new Set(manifest.files.map((f) => f.path));
  for (const f of manifest.files) {
    const path = join(dir, f.path);
    // A listed path must stay inside the folder: a manifest naming ../x is itself wrong.
    if (f.path.startsWith("/") || relative(dir, path).startsWith("..")) {
      problems.push(`${f.path}: listed outside the folder`);
      continue;
    }
    if (!existsSync(path) || !statSync(path).isFile()) {
      problems.push(`${f.path}: missing`);
      continue;
    }
    const bytes = readFileSync(path);
    if (sha256(bytes) !== f.sha256 || bytes.length !== f.bytes) {
      problems.push(
        `${f.path}: changed (SHA-256 ${sha256(bytes)}, ${bytes.length} bytes; the manifest says ${f.sha256}, ${f.bytes} bytes)`,
      );
      continue;
    }
    intact++;
  }
  for (const path of filesUnder(dir)) {
    if (!listed.has(path) && path !== "manifest.json" && path !== SIGNATURE_FILE)
      problems.push(`${path}: not in the manifest`);
  }
  let signature: VerifyReport["signature"] = "unchecked";
  if (publicKey) {
    const sigFile = join(dir, SIGNATURE_FILE);
    if (!existsSync(sigFile)) {
      signature = "missing";
      problems.push(`${SIGNATURE_FILE}: missing (the snapshot is not signed)`);
    } else if (
      manifestSignedBy(readFileSync(join(dir, "manifest.json")), readFileSync(sigFile, "utf8"), publicKey)
    ) {
      signature = "valid";
    } else {
      signature = "invalid";
      problems.push(
        `${SIGNATURE_FILE}: not this key's signature of manifest.json (the manifest was changed, or another key signed it)`,
      );
    }
  }
  return { files: intact, problems, signature };
}
