// /api/channels, /api/channel/*: channels, labelled folders of links. The SPEC shows no shapes; these
// follow the original product: list items {id, name, description, color, starred}, create answers
// the new channel, update/delete/assign answer a message.
import {
  LegacyChannelAddBody,
  LegacyChannelAssignParams,
  LegacyChannelUpdateBody,
  LegacyIdParams,
} from "@kurz/contracts";
import type { Channel, PrismaClient } from "@kurz/db";
import { notFound, requireIdentity } from "@kurz/service-kit";
import { Router } from "express";
import { legacyListBody, legacyPage } from "./list-page.ts";
import { isRecordMissing } from "./prisma-errors.ts";

export const toLegacyChannel = (channel: Channel) => ({
  id: channel.id,
  name: channel.name,
  description: channel.description,
  color: channel.color,
  starred: channel.starred,
});

const channelNotFound = () => notFound("Channel not found");

export function legacyChannelsRouter(deps: { prisma: PrismaClient }): Router {
  const router = Router();
  const { prisma } = deps;

  router.get("/channels", async (req, res) => {
    const { accountId } = requireIdentity(res);
    const where = { accountId };
    const page = await legacyPage(
      req.query,
      () => prisma.channel.count({ where }),
      (skip, take) => prisma.channel.findMany({ where, orderBy: { id: "desc" }, skip, take }),
    );
    res.json(legacyListBody("channels", { ...page, items: page.items.map(toLegacyChannel) }));
  });

  router.post("/channel/add", async (req, res) => {
    const { accountId } = requireIdentity(res);
    const body = LegacyChannelAddBody.parse(req.body);
    const channel = await prisma.channel.create({
      data: {
        accountId,
        name: body.name,
        ...(body.description !== undefined ? { description: body.description } : {}),
        ...(body.color !== undefined ? { color: body.color.toUpperCase() } : {}),
        ...(body.starred !== undefined ? { starred: body.starred } : {}),
      },
    });
    res.json({ error: 0, ...toLegacyChannel(channel) });
  });

  router.put("/channel/:id/update", async (req, res) => {
    const { accountId } = requireIdentity(res);
    const { id } = LegacyIdParams.parse(req.params);
    const body = LegacyChannelUpdateBody.parse(req.body);
    try {
      await prisma.channel.update({
        where: { id, accountId },
        data: {
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.description !== undefined ? { description: body.description } : {}),
          ...(body.color !== undefined ? { color: body.color.toUpperCase() } : {}),
          ...(body.starred !== undefined ? { starred: body.starred } : {}),
        },
      });
    } catch (err) {
      if (isRecordMissing(err)) throw channelNotFound();
      throw err;
    }
    res.json({ error: 0, message: "Channel has been updated successfully." });
  });

  router.delete("/channel/:id/delete", async (req, res) => {
    const { accountId } = requireIdentity(res);
    const { id } = LegacyIdParams.parse(req.params);
    try {
      await prisma.channel.delete({ where: { id, accountId } });
    } catch (err) {
      if (isRecordMissing(err)) throw channelNotFound();
      throw err;
    }
    res.json({ error: 0, message: "Channel has been deleted successfully." });
  });

  router.post("/channel/:channelid/assign/:linkid", async (req, res) => {
    const { accountId } = requireIdentity(res);
    const { channelid, linkid } = LegacyChannelAssignParams.parse(req.params);
    const [channel, link] = await Promise.all([
      prisma.channel.findFirst({ where: { id: channelid, accountId }, select: { id: true } }),
      prisma.link.findFirst({ where: { id: linkid, accountId }, select: { id: true } }),
    ]);
    if (!channel) throw channelNotFound();
    if (!link) throw notFound("Link not found");
    // Assigning twice is harmless; a concurrent delete of either side surfaces as a foreign-key error.
    try {
      await prisma.channelLink.createMany({
        data: [{ channelId: channelid, linkId: linkid }],
        skipDuplicates: true,
      });
    } catch (err) {
      if ((err as { code?: string } | null)?.code === "P2003") throw notFound("Channel or link not found");
      throw err;
    }
    res.json({ error: 0, message: "Link has been added to the channel." });
  });

  return router;
}
