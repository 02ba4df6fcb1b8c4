// Deleting a channel (its links stay).
import { isRecordMissing, type PrismaClient } from "@kurz/db";
import { channelNotFound } from "./channels.ts";

export async function deleteChannel(prisma: PrismaClient, accountId: string, id: number): Promise<void> {
  try {
    await prisma.channel.delete({ where: { id, accountId } });
  } catch (err) {
    if (isRecordMissing(err)) throw channelNotFound();
    throw err;
  }
}
