import type { Prisma } from "@kurz/db";
import { randomBase62 } from "./api-keys.ts";

const LENGTH = 7; // 62^7 ≈ 3.5e12 codes: collisions stay rare long past any single deployment's size
const ATTEMPTS = 5;

/** A random code not yet taken. A race with a concurrent insert still fails on the unique index. */
export async function freeShortCode(tx: Prisma.TransactionClient): Promise<string> {
  for (let i = 0; i < ATTEMPTS; i++) {
    const code = randomBase62(LENGTH);
    if (!(await tx.link.findUnique({ where: { shortCode: code }, select: { id: true } }))) return code;
  }
  throw new Error("could not find a free short code");
}
