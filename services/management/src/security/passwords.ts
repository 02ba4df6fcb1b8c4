// argon2id for link and account passwords (ARCHITECTURE.md). @node-rs/argon2 ships prebuilt binaries
// in npm packages, so nothing is compiled or downloaded at install time.
//
// The parameters are spelled out rather than left to the library's defaults, so that an upgrade of the
// library cannot weaken them silently. m=19456 KiB, t=2, p=1 is one of the argon2id configurations
// OWASP's Password Storage Cheat Sheet lists as equally strong: about 25 ms and 19 MiB per hash on
// one core here. The redirect verifies a link password on every allowed attempt, so this cost times
// the attempt budgets is what a guessing flood can cost it (docs/security.md). Every hash carries its
// parameters (`$argon2id$v=19$m=…,t=…,p=…$`): raising them later changes new hashes only.
import { hash, verify } from "@node-rs/argon2";

export const ARGON2_OPTIONS = {
  algorithm: 2, // Algorithm.Argon2id (a const enum, which isolated modules cannot read)
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
  outputLen: 32,
} as const;

export const hashPassword = (password: string): Promise<string> => hash(password, ARGON2_OPTIONS);
export const verifyPassword = (hashed: string, password: string): Promise<boolean> =>
  verify(hashed, password);
