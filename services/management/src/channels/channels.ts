// The older API's channels, labelled folders of links: list, create, update, delete, assign a link.
// Another account's channel or link is not found, exactly like a missing one.
import type { LegacyChannelAddBody, LegacyChannelUpdateBody, LegacyListQuery } from "@kurz/contracts";
import { type Channel, isForeignKeyViolation, isRecordMissing, type PrismaClient } from "@kurz/db";
import { notFound } from "@kurz/service-kit";
import { type LegacyPage, legacyPage } from "../db/numbered-page.ts";

const channelNotFound = () => notFound("Channel not found");

/** Members left out keep their value (or the column default); colours are stored upper-case. */
const channelData = (body: LegacyChannelUpdateBody) => ({
  ...(body.name !== undefined ? { name: body.name } : {}),
  ...(body.description !== undefined ? { description: body.description } : {}),
  ...(body.color !== undefined ? { color: body.color.toUpperCase() } : {}),
  ...(body.starred !== undefined ? { starred: body.starred } : {}),
});

/** The account's channels, newest first. */
export function listChannels(
  prisma: PrismaClient,
  accountId: string,
  query: LegacyListQuery,
): Promise<LegacyPage<Channel>> {
  const where = { accountId };
  return legacyPage(
    query,
    () => prisma.channel.count({ where }),
    (skip, take) => prisma.channel.findMany({ where, orderBy: { id: "desc" }, skip, take }),
  );
}

export function createChannel(
  prisma: PrismaClient,
  accountId: string,
  body: LegacyChannelAddBody,
): Promise<Channel> {
  return prisma.channel.create({ data: { accountId, ...channelData(body), name: body.name } });
}

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

export async function deleteChannel(prisma: PrismaClient, accountId: string, id: number): Promise<void> {
  try {
    await prisma.channel.delete({ where: { id, accountId } });
  } catch (err) {
    if (isRecordMissing(err)) throw channelNotFound();
    throw err;
  }
}

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
    await prisma.channelLink.createMany({ data: [{ channelId, linkId }], skipDuplicates: true });
  } catch (err) {
    if (isForeignKeyViolation(err)) throw notFound("Channel or link not found");
    throw err;
  }
}

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
  const removed = await prisma.channelLink.deleteMany({ where: { channelId, linkId } });
  if (removed.count === 0) throw notFound("Link is not in this channel");
}
