// Changing a channel.
import type { LegacyChannelUpdateBody } from "@kurz/contracts";
import { isRecordMissing, type PrismaClient } from "@kurz/db";
import { channelData, channelNotFound } from "./channels.ts";

export async function updateChannel(
  prisma: PrismaClient,
  accountId: string,
  id: number,
  body: LegacyChannelUpdateBody,
): Promise<void> {
  try {
    await prisma.channel.update({ where: { id, accountId }, data: channelData(body) });
  } catch (err) {
    if (isRecordMissing(err)) throw channelNotFound();
    throw err;
  }
}
