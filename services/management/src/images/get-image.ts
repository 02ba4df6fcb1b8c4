// GET /api/v1/images/:id: an uploaded image, public (link-preview fetchers read it without a key) and
// immutable (an id always names the same bytes).
import { SERVED_IMAGE_TYPES } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { notFound } from "@kurz/service-kit";

export interface ServedImage {
  contentType: (typeof SERVED_IMAGE_TYPES)[number];
  bytes: Buffer;
  etag: string;
}

const isServed = (type: string): type is ServedImage["contentType"] =>
  (SERVED_IMAGE_TYPES as readonly string[]).includes(type);

export const imageNotFound = () => notFound("Image not found");

/** The image's bytes as Kurz encoded them; 404 for an unknown id. Only JPEG and PNG are ever served. */
export async function getImage(prisma: PrismaClient, id: string): Promise<ServedImage> {
  const image = await prisma.image.findUnique({ where: { id }, select: { contentType: true, bytes: true } });
  if (!image || !isServed(image.contentType)) throw imageNotFound();
  return { contentType: image.contentType, bytes: Buffer.from(image.bytes), etag: `"${id}"` };
}
