// Creating a channel.
import type { LegacyChannelAddBody } from "@kurz/contracts";
import type { Channel, PrismaClient } from "@kurz/db";
import { channelData } from "./channels.ts";

export function createChannel(
  prisma: PrismaClient,
  accountId: string,
  body: LegacyChannelAddBody,
): Promise<Channel> {
  return prisma.channel.create({ data: { accountId, ...channelData(body), name: body.name } });
}
