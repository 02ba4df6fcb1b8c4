// The continuity snapshot's signature and refresh (docs/continuity.md), on a rendered set written to
// disk: a signed manifest verifies with its key, and `./kurz snapshot:verify` names every difference of
// a tampered copy (a changed file, a changed manifest, a file added or removed, another key) and exits
// non-zero; openssl verifies the signature as the docs say. A refresh replaces a previous snapshot
// whole and leaves nothing beside it; a folder with anything else in it is refused untouched.
import { spawnSync } from "node:child_process";
import { createHash, generateKeyPairSync } from "node:crypto";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cliNodeArgs, ensureBundles } from "@kurz/testing/bundles";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manifestOf, renderSnapshot, type SnapshotInput, writeSnapshot } from "../src/exports/snapshot.ts";
import { SIGNATURE_FILE, signManifest } from "../src/exports/snapshot-signature.ts";
import { verifySnapshot } from "../src/exports/verify-snapshot.ts";

const NOW = new Date("2030-06-01T12:00:00.000Z");
const dirs: string[] = [];
const tmp = () => {
  const dir = mkdtempSync(join(tmpdir(), "kurz-snapshot-verify-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const link = (shortCode: string, originalUrl: string) => ({
  shortCode,
  originalUrl,
  isActive: true,
  expiresAt: null,
  passwordHash: null,
  domainId: null,
  forwardQuery: true,
  expiredUrl: null,
});
const input = (urls: Record<string, string>, now = NOW): SnapshotInput => ({
  publicHost: "short.test",
  domains: [],
  links: Object.entries(urls).map(([code, url]) => link(code, url)),
  now,
});

const keys = () => generateKeyPairSync("ed25519");
const pem = (
  dir: string,
  name: string,
  key: { export(o: object): string | Buffer },
  type: "pkcs8" | "spki",
) => {
  const file = join(dir, name);
  writeFileSync(file, key.export({ type, format: "pem" }));
  return file;
};

/** Writes a static snapshot of `urls` into `out`, signed with `privateKey` when given. */
function write(
  out: string,
  urls: Record<string, string>,
  privateKey?: ReturnType<typeof keys>["privateKey"],
  now = NOW,
) {
  const files = renderSnapshot("static", input(urls, now), { status: 302 });
  const manifest = manifestOf(files, { format: "static", generatedAt: now, links: Object.keys(urls).length });
  writeSnapshot(out, files, manifest, privateKey ? signManifest(manifest, privateKey) : undefined);
}

// The admin CLI as `./kurz` runs it: its bundle (a start without compiling the workspace again).
beforeAll(() => ensureBundles());
const verifyCli = (args: string[]) =>
  spawnSync(process.execPath, cliNodeArgs(["snapshot:verify", ...args]), { encoding: "utf8" });

describe("a signed snapshot", () => {
  it("verifies with its key, and names each way a copy was tampered with", () => {
    const { privateKey, publicKey } = keys();
    const out = join(tmp(), "snap");
    write(out, { a: "https://example.com/a", b: "https://example.com/b" }, privateKey);
    expect(readdirSync(out).sort()).toEqual(["_redirects", "a", "b", "manifest.json", SIGNATURE_FILE]);
    expect(verifySnapshot(out, publicKey)).toEqual({ files: 3, problems: [], signature: "valid" });
    expect(verifySnapshot(out)).toMatchObject({ problems: [], signature: "unchecked" });

    // Another key's signature of the very same manifest.
    expect(verifySnapshot(out, keys().publicKey)).toMatchObject({ signature: "invalid" });

    // A file changed: its hash no longer matches; the signature still covers the untouched manifest.
    const page = join(out, "a", "index.html");
    const original = readFileSync(page, "utf8");
    writeFileSync(page, original.replaceAll("https://example.com/a", "https://evil.example/"));
    const changed = verifySnapshot(out, publicKey);
    expect(changed.signature).toBe("valid");
    expect(changed.problems).toEqual([
      expect.stringMatching(/^a\/index\.html: changed \(SHA-256 [0-9a-f]{64}/),
    ]);

    // The manifest rewritten to match the changed file: the files agree, the signature does not.
    const manifestFile = join(out, "manifest.json");
    const signedManifest = readFileSync(manifestFile, "utf8");
    const manifest = JSON.parse(signedManifest);
    const changedBytes = readFileSync(page);
    for (const f of manifest.files) {
      if (f.path === "a/index.html") {
        f.sha256 = createHash("sha256").update(changedBytes).digest("hex");
        f.bytes = changedBytes.length;
      }
    }
    writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
    const forged = verifySnapshot(out, publicKey);
    expect(forged.signature).toBe("invalid");
    expect(forged.problems).toEqual([expect.stringContaining(`${SIGNATURE_FILE}: not this key's signature`)]);

    // A file added and one removed.
    writeFileSync(page, original);
    writeFileSync(manifestFile, signedManifest);
    expect(verifySnapshot(out, publicKey)).toMatchObject({ problems: [], signature: "valid" });
    writeFileSync(join(out, "extra.html"), "<script>");
    unlinkSync(join(out, "b", "index.html"));
    expect(verifySnapshot(out, publicKey).problems).toEqual([
      "b/index.html: missing",
      "extra.html: not in the manifest",
    ]);
  });

  it("says an unsigned snapshot is unsigned when a key is given", () => {
    const out = join(tmp(), "snap");
    write(out, { a: "https://example.com/a" });
    expect(verifySnapshot(out, keys().publicKey)).toMatchObject({
      signature: "missing",
      problems: [`${SIGNATURE_FILE}: missing (the snapshot is not signed)`],
    });
  });

  it("is checked by `./kurz snapshot:verify`, non-zero with each difference; openssl agrees", () => {
    const dir = tmp();
    const { privateKey, publicKey } = keys();
    const pub = pem(dir, "pub.pem", publicKey, "spki");
    const out = join(dir, "snap");
    write(out, { a: "https://example.com/a" }, privateKey);

    const ok = verifyCli([out, "--pub-key", pub]);
    expect(ok.status, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout.trim().split("\n").at(-1)!)).toMatchObject({
      signature: "valid",
      problems: [],
    });
    expect(ok.stderr).toContain("2 files intact, manifest signed by the key");

    // The documented openssl check of the same signature.
    const sig = join(dir, "sig.bin");
    writeFileSync(sig, Buffer.from(readFileSync(join(out, SIGNATURE_FILE), "utf8"), "base64"));
    const openssl = spawnSync(
      "openssl",
      [
        "pkeyutl",
        "-verify",
        "-pubin",
        "-inkey",
        pub,
        "-rawin",
        "-in",
        join(out, "manifest.json"),
        "-sigfile",
        sig,
      ],
      { encoding: "utf8" },
    );
    if (openssl.error === undefined)
      expect(openssl.stdout + openssl.stderr).toContain("Signature Verified Successfully");

    appendFileSync(join(out, "_redirects"), "/x https://evil.example/ 302\n");
    const bad = verifyCli([out, "--pub-key", pub]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^_redirects: changed/m);
    expect(bad.stderr).toContain("1 difference(s)");

    const wrongKey = verifyCli([out, "--pub-key", pem(dir, "other.pem", keys().publicKey, "spki")]);
    expect(wrongKey.status).toBe(1);
    expect(wrongKey.stderr).toContain(`${SIGNATURE_FILE}: not this key's signature`);

    const notKey = join(dir, "not-a-key.pem");
    writeFileSync(notKey, "hello");
    const garbage = verifyCli([out, "--pub-key", notKey]);
    expect(garbage.status).toBe(1);
    expect(garbage.stderr).toContain("is not a PEM public key");

    const none = verifyCli([join(dir, "nowhere")]);
    expect(none.status).toBe(1);
    expect(none.stderr).toContain("is not a directory");
  }, 60_000);
});

describe("refreshing a snapshot", () => {
  it("replaces a previous snapshot whole, leaving nothing beside it", () => {
    const parent = tmp();
    const out = join(parent, "snap");
    write(out, { a: "https://example.com/a", old: "https://example.com/old" });
    const later = new Date(NOW.getTime() + 3_600_000);
    write(out, { a: "https://example.com/a2", fresh: "https://example.com/fresh" }, undefined, later);
    expect(readdirSync(out).sort()).toEqual(["_redirects", "a", "fresh", "manifest.json"]);
    expect(readFileSync(join(out, "_redirects"), "utf8")).toContain("/a https://example.com/a2 302");
    expect(JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")).generated_at).toBe(
      later.toISOString(),
    );
    expect(verifySnapshot(out).problems).toEqual([]);
    expect(readdirSync(parent)).toEqual(["snap"]);
  });

  it("refuses a folder that holds a snapshot and something else, changing nothing", () => {
    const parent = tmp();
    const out = join(parent, "snap");
    write(out, { a: "https://example.com/a" });
    mkdirSync(join(out, "logs"));
    writeFileSync(join(out, "logs", "access.log"), "mine");
    const before = readFileSync(join(out, "manifest.json"), "utf8");
    expect(() => write(out, { b: "https://example.com/b" })).toThrow(
      /is not empty and holds no snapshot of its own/,
    );
    expect(readFileSync(join(out, "manifest.json"), "utf8")).toBe(before);
    expect(existsSync(join(out, "b"))).toBe(false);
    expect(readdirSync(parent)).toEqual(["snap"]);
  });
});
