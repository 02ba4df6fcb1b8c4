// Taking a link out of a channel.
import type { PrismaClient } from "@kurz/db";
import { notFound } from "@kurz/service-kit";
import { recordLinkMembership } from "../audit/record-audit.ts";
import { channelNotFound } from "./channels.ts";

/** Takes the link out of the channel; 404 when the channel is not the account's or the link is not in it. */
export async function removeLinkFromChannel(
  prisma: PrismaClient,
  accountId: string,
  channelId: number,
  linkId: string,
): Promise<void> {
  const channel = await prisma.channel.findFirst({
    where: { id: channelId, accountId },
    select: { id: true },
  });
  if (!channel) throw channelNotFound();
  await prisma.$transaction(async (tx) => {
    const removed = await tx.channelLink.deleteMany({ where: { channelId, linkId } });
    if (removed.count === 0) throw notFound("Link is not in this channel");
    await recordLinkMembership(tx, accountId, { type: "channel", id: channelId }, "link_removed", linkId);
  });
}
