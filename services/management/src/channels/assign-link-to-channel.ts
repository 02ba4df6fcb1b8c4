// Putting a link in a channel.
import { isForeignKeyViolation, type PrismaClient } from "@kurz/db";
import { notFound } from "@kurz/service-kit";
import { recordLinkMembership } from "../audit/record-audit.ts";
import { channelNotFound } from "./channels.ts";

/** Puts one of the account's links in one of its channels; assigning twice is harmless. */
export async function assignLinkToChannel(
  prisma: PrismaClient,
  accountId: string,
  channelId: number,
  linkId: string,
): Promise<void> {
  const [channel, link] = await Promise.all([
    prisma.channel.findFirst({ where: { id: channelId, accountId }, select: { id: true } }),
    prisma.link.findFirst({ where: { id: linkId, accountId }, select: { id: true } }),
  ]);
  if (!channel) throw channelNotFound();
  if (!link) throw notFound("Link not found");
  // A concurrent delete of either side surfaces as a foreign-key error.
  try {
    await prisma.$transaction(async (tx) => {
      const added = await tx.channelLink.createMany({ data: [{ channelId, linkId }], skipDuplicates: true });
      if (added.count === 0) return;
      await recordLinkMembership(tx, accountId, { type: "channel", id: channelId }, "link_added", linkId);
    });
  } catch (err) {
    if (isForeignKeyViolation(err)) throw notFound("Channel or link not found");
    throw err;
  }
}
