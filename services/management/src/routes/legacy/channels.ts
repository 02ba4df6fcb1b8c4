// /api/channels, /api/channel/*: channels, labelled folders of links. Records in contracts'
// routes-legacy.ts, use cases in channels/channels.ts. The documentation shows no shapes; these follow
// the original product: list items {id, name, description, color, starred}, create answers the new
// channel, update/delete/assign answer a message.
import { ROUTES } from "@kurz/contracts";
import type { Channel, PrismaClient } from "@kurz/db";
import { type MountedRoute, route } from "@kurz/service-kit";
import { assignLinkToChannel } from "../../channels/assign-link-to-channel.ts";
import { createChannel } from "../../channels/create-channel.ts";
import { deleteChannel } from "../../channels/delete-channel.ts";
import { listChannels } from "../../channels/list-channels.ts";
import { removeLinkFromChannel } from "../../channels/remove-link-from-channel.ts";
import { updateChannel } from "../../channels/update-channel.ts";
import { legacyListBody, legacyMessage, legacyOk } from "./legacy-envelope.ts";

export const toLegacyChannel = (channel: Channel) => ({
  id: channel.id,
  name: channel.name,
  description: channel.description,
  color: channel.color,
  starred: channel.starred,
});

export function legacyChannelsRoutes({ prisma }: { prisma: PrismaClient }): MountedRoute[] {
  return [
    route(ROUTES.legacyListChannels, async ({ identity, query }) => {
      const page = await listChannels(prisma, identity.accountId, query);
      return legacyListBody("channels", { ...page, items: page.items.map(toLegacyChannel) });
    }),
    route(ROUTES.legacyAddChannel, async ({ identity, body }) =>
      legacyOk(toLegacyChannel(await createChannel(prisma, identity.accountId, body))),
    ),
    route(ROUTES.legacyUpdateChannel, async ({ identity, params, body }) => {
      await updateChannel(prisma, identity.accountId, params.id, body);
      return legacyMessage("Channel has been updated successfully.");
    }),
    route(ROUTES.legacyDeleteChannel, async ({ identity, params }) => {
      await deleteChannel(prisma, identity.accountId, params.id);
      return legacyMessage("Channel has been deleted successfully.");
    }),
    route(ROUTES.legacyAssignChannel, async ({ identity, params }) => {
      await assignLinkToChannel(prisma, identity.accountId, params.channelid, params.linkid);
      return legacyMessage("Link has been added to the channel.");
    }),
    route(ROUTES.legacyRemoveChannelLink, async ({ identity, params }) => {
      await removeLinkFromChannel(prisma, identity.accountId, params.channelid, params.linkid);
      return legacyMessage("Link has been removed from the channel.");
    }),
  ];
}
