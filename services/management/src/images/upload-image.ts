// POST /api/v1/images: an Open Graph image for the workspace's links (og.image), re-encoded
// (reencode-image.ts) and kept in Postgres beside the links that name it.
import { randomBytes } from "node:crypto";
import { OG_IMAGE_MAX_BYTES, type UploadedImage } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { validation } from "@kurz/service-kit";
import { recordAudit } from "../audit/record-audit.ts";
import { imageUrlOf } from "../links/smart-fields.ts";
import { ImageRefused, reencodeImage } from "./reencode-image.ts";

/** 16 random bytes: 22 base64url characters, unguessable (the image is public by its id). */
export const newImageId = (): string => randomBytes(16).toString("base64url");

/**
 * Stores the re-encoded `file` for the workspace; a file that is not a decodable PNG, JPEG or WebP of
 * the declared type is a VALIDATION_ERROR and nothing is stored.
 */
export async function uploadImage(
  deps: { prisma: PrismaClient; baseUrl: string },
  accountId: string,
  file: Uint8Array,
  declaredType: string | undefined,
): Promise<UploadedImage> {
  if (file.byteLength > OG_IMAGE_MAX_BYTES) {
    const message = `An image has at most ${OG_IMAGE_MAX_BYTES / 1024 / 1024} MB`;
    throw validation(message, { _errors: [message] });
  }
  const media = (declaredType ?? "").split(";")[0]!.trim().toLowerCase();
  let image: Awaited<ReturnType<typeof reencodeImage>>;
  try {
    image = await reencodeImage(file, media);
  } catch (err) {
    if (err instanceof ImageRefused) throw validation(err.message, { _errors: [err.message] });
    throw err;
  }
  const id = newImageId();
  await deps.prisma.$transaction(async (tx) => {
    await tx.image.create({
      data: {
        id,
        accountId,
        contentType: image.contentType,
        bytes: new Uint8Array(image.bytes),
        width: image.width,
        height: image.height,
      },
    });
    await recordAudit(tx, {
      accountId,
      action: "image.uploaded",
      resourceType: "image",
      resourceId: id,
      details: { bytes: image.bytes.byteLength, content_type: image.contentType },
    });
  });
  return {
    id,
    url: imageUrlOf(deps.baseUrl, id),
    width: image.width,
    height: image.height,
    content_type: image.contentType,
    bytes: image.bytes.byteLength,
  };
}
