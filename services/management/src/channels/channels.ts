// What the channel use cases share: a channel is a labelled folder of links (the older API's
// /api/channels). Another account's channel or link is not found, exactly like a missing one.
import type { LegacyChannelUpdateBody } from "@kurz/contracts";
import { notFound } from "@kurz/service-kit";

export const channelNotFound = () => notFound("Channel not found");

/** Members left out keep their value (or the column default); colours are stored upper-case. */
export const channelData = (body: LegacyChannelUpdateBody) => ({
  ...(body.name !== undefined ? { name: body.name } : {}),
  ...(body.description !== undefined ? { description: body.description } : {}),
  ...(body.color !== undefined ? { color: body.color.toUpperCase() } : {}),
  ...(body.starred !== undefined ? { starred: body.starred } : {}),
});
