// Browsers a user signed in from before, told apart by a random token in their device cookie (only
// its SHA-256 is kept). It authenticates nothing: it only decides whether a sign-in is announced.

import type { Prisma, PrismaClient } from "@kurz/db";
import { hashToken, newToken } from "../security/tokens.ts";

/** The most browsers remembered per user; the least recently seen are forgotten first. */
const KEPT_PER_USER = 50;

export interface RecognisedDevice {
  /** The token the browser keeps (its own when it sent a well-formed one). */
  token: string;
  /** The user had signed in from other browsers, but not this one. */
  unfamiliar: boolean;
}

/** Remembers the browser for the user and says whether it was new to an account used elsewhere before. */
export async function recogniseDevice(
  db: Pick<PrismaClient, "knownDevice"> | Prisma.TransactionClient,
  userId: string,
  device: string | null,
  now = new Date(),
): Promise<RecognisedDevice> {
  const token = device ?? newToken();
  const deviceHash = hashToken(token);
  const where = { userId_deviceHash: { userId, deviceHash } };
  if (await db.knownDevice.findUnique({ where, select: { userId: true } })) {
    await db.knownDevice.update({ where, data: { lastSeenAt: now } });
    return { token, unfamiliar: false };
  }
  const others = await db.knownDevice.count({ where: { userId } });
  await db.knownDevice.create({ data: { userId, deviceHash, createdAt: now, lastSeenAt: now } });
  if (others >= KEPT_PER_USER) {
    const stale = await db.knownDevice.findMany({
      where: { userId },
      orderBy: { lastSeenAt: "desc" },
      skip: KEPT_PER_USER,
      select: { deviceHash: true },
    });
    await db.knownDevice.deleteMany({
      where: { userId, deviceHash: { in: stale.map((d) => d.deviceHash) } },
    });
  }
  return { token, unfamiliar: others > 0 };
}
