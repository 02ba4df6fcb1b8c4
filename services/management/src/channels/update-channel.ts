// Changing a channel.
import type { LegacyChannelUpdateBody } from "@kurz/contracts";
import { isRecordMissing, type PrismaClient } from "@kurz/db";
import { changedFields, recordAudit } from "../audit/record-audit.ts";
import { channelData, channelNotFound } from "./channels.ts";

export async function updateChannel(
  prisma: PrismaClient,
  accountId: string,
  id: number,
  body: LegacyChannelUpdateBody,
): Promise<void> {
  try {
    await prisma.$transaction(async (tx) => {
      await tx.channel.update({ where: { id, accountId }, data: channelData(body) });
      await recordAudit(tx, {
        accountId,
        action: "channel.updated",
        resourceType: "channel",
        resourceId: id,
        details: changedFields(body),
      });
    });
  } catch (err) {
    if (isRecordMissing(err)) throw channelNotFound();
    throw err;
  }
}
