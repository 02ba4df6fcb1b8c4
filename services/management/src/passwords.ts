// argon2id for link and account passwords (ARCHITECTURE.md). @node-rs/argon2 ships prebuilt binaries
// in npm packages, so nothing is compiled or downloaded at install time.
import { hash, verify } from "@node-rs/argon2";

export const hashPassword = (password: string): Promise<string> => hash(password, { algorithm: 2 });
export const verifyPassword = (hashed: string, password: string): Promise<boolean> =>
  verify(hashed, password);
