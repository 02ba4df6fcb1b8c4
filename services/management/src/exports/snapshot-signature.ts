// The snapshot's signature (docs/continuity.md): Ed25519 over the exact bytes of manifest.json, which
// holds the SHA-256 of every file, so one signature covers the whole set. Written as manifest.json.sig,
// base64. Keys are PEM files as `openssl genpkey -algorithm ed25519` writes them; node:crypto reads them.
import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from "node:crypto";
import { readFileSync } from "node:fs";

export const SIGNATURE_FILE = "manifest.json.sig";

function pem(file: string, flag: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    throw new Error(`${flag} ${file} cannot be read: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}

function ed25519(key: KeyObject, file: string, flag: string): KeyObject {
  if (key.asymmetricKeyType !== "ed25519")
    throw new Error(
      `${flag} ${file} is a ${key.asymmetricKeyType ?? "symmetric"} key; an Ed25519 key is needed`,
    );
  return key;
}

/** The Ed25519 private key in PEM file `file` (`--sign-key`). */
export function readSigningKey(file: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem(file, "--sign-key"));
  } catch (err) {
    if (err instanceof Error && err.message.startsWith("--sign-key")) throw err;
    throw new Error(`--sign-key ${file} is not a PEM private key`);
  }
  return ed25519(key, file, "--sign-key");
}

/** The Ed25519 public key in PEM file `file` (`--pub-key`); a private key's public half also does. */
export function readVerifyKey(file: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey(pem(file, "--pub-key"));
  } catch (err) {
    if (err instanceof Error && err.message.startsWith("--pub-key")) throw err;
    throw new Error(`--pub-key ${file} is not a PEM public key`);
  }
  return ed25519(key, file, "--pub-key");
}

/** manifest.json.sig's content: the base64 signature of the manifest's bytes and a newline. */
export function signManifest(manifest: string, key: KeyObject): string {
  return `${sign(null, Buffer.from(manifest), key).toString("base64")}\n`;
}

/** Whether `signature` (manifest.json.sig's content) is `key`'s signature of `manifest` (its bytes). */
export function manifestSignedBy(manifest: Buffer, signature: string, key: KeyObject): boolean {
  const bytes = Buffer.from(signature.trim(), "base64");
  // Ed25519 signatures are 64 bytes; anything else is no signature (base64 ignores stray characters).
  if (bytes.length !== 64) return false;
  return verify(null, manifest, key, bytes);
}
