// Creating a channel.
import type { LegacyChannelAddBody } from "@kurz/contracts";
import type { Channel, PrismaClient } from "@kurz/db";
import { recordCreated } from "../audit/record-audit.ts";
import { channelData } from "./channels.ts";

export function createChannel(
  prisma: PrismaClient,
  accountId: string,
  body: LegacyChannelAddBody,
): Promise<Channel> {
  return prisma.$transaction(async (tx) => {
    const channel = await tx.channel.create({ data: { accountId, ...channelData(body), name: body.name } });
    await recordCreated(tx, accountId, "channel", channel.id);
    return channel;
  });
}
