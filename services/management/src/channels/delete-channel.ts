// Deleting a channel (its links stay).
import { isRecordMissing, type PrismaClient } from "@kurz/db";
import { recordAudit } from "../audit/record-audit.ts";
import { channelNotFound } from "./channels.ts";

export async function deleteChannel(prisma: PrismaClient, accountId: string, id: number): Promise<void> {
  try {
    await prisma.$transaction(async (tx) => {
      await tx.channel.delete({ where: { id, accountId } });
      await recordAudit(tx, {
        accountId,
        action: "channel.deleted",
        resourceType: "channel",
        resourceId: id,
      });
    });
  } catch (err) {
    if (isRecordMissing(err)) throw channelNotFound();
    throw err;
  }
}
