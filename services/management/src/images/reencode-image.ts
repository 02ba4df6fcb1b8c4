// An uploaded Open Graph image becomes one Kurz made itself: decoded, oriented, fitted into
// 1200×1200, re-encoded without metadata (no camera, no GPS position). What is served is always these
// bytes, JPEG or (with transparency) PNG, never the upload: a file that only looks like an image, or
// that carries a script or another format inside, never reaches a visitor.
import { OG_IMAGE_MAX_BYTES, type OG_IMAGE_TYPES } from "@kurz/contracts";
import sharp from "sharp";

/** The box a preview image is fitted into (the size link-preview fetchers show at most). */
export const IMAGE_BOX = 1200;
/**
 * Decoding stops above this many pixels: a small file may declare a huge canvas (a decompression bomb)
 * whose decode would take the process's memory. 25 MP holds any photo a 1 MB upload can carry.
 */
export const MAX_INPUT_PIXELS = 25_000_000;

// libvips keeps decoded images in a cache for re-use; an upload is decoded once.
sharp.cache(false);

export type UploadType = (typeof OG_IMAGE_TYPES)[number];

export interface Reencoded {
  contentType: "image/jpeg" | "image/png";
  bytes: Buffer;
  width: number;
  height: number;
}

/** Why an upload was refused (shown to the uploader). */
export class ImageRefused extends Error {
  override name = "ImageRefused";
}

/** The type the file's first bytes say it is, among the accepted ones; null for anything else. */
export function sniffImageType(file: Uint8Array): UploadType | null {
  const b = file;
  if (b.length >= 8 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) {
    return b[4] === 0x0d && b[5] === 0x0a && b[6] === 0x1a && b[7] === 0x0a ? "image/png" : null;
  }
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  const ascii = (from: number, to: number) => String.fromCharCode(...b.subarray(from, to));
  if (b.length >= 12 && ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return "image/webp";
  return null;
}

const FORMAT_OF: Record<UploadType, string> = {
  "image/png": "png",
  "image/jpeg": "jpeg",
  "image/webp": "webp",
};

/**
 * Re-encodes an upload declared as `declared`. Refuses (ImageRefused) a file over the size limit, one
 * whose bytes are not the declared type, and one that does not decode whole (a header over garbage, a
 * truncated file, a canvas over MAX_INPUT_PIXELS). Only the PNG, JPEG and WebP decoders ever see the
 * bytes: the type is read from them before any decoder runs.
 */
export async function reencodeImage(file: Uint8Array, declared: string): Promise<Reencoded> {
  if (file.byteLength > OG_IMAGE_MAX_BYTES) throw new ImageRefused("The image is larger than 1 MB");
  const type = sniffImageType(file);
  if (type === null) throw new ImageRefused("Expected a PNG, JPEG or WebP image");
  if (type !== declared) throw new ImageRefused(`The file is ${type}, not the ${declared} it was sent as`);
  const input = Buffer.from(file.buffer, file.byteOffset, file.byteLength);
  // failOn "error": a file libvips must guess its way through (corrupt data) is refused, not rendered.
  const options = { limitInputPixels: MAX_INPUT_PIXELS, failOn: "error" as const, animated: false };
  try {
    const meta = await sharp(input, options).metadata();
    if (meta.format !== FORMAT_OF[type]) throw new ImageRefused("Expected a PNG, JPEG or WebP image");
    const pipeline = sharp(input, options)
      .rotate() // applies the EXIF orientation before the metadata is dropped
      .resize(IMAGE_BOX, IMAGE_BOX, { fit: "inside", withoutEnlargement: true });
    const png = meta.hasAlpha === true;
    const { data, info } = await (png
      ? pipeline.png({ compressionLevel: 9 })
      : pipeline.flatten({ background: "#ffffff" }).jpeg({ quality: 85, mozjpeg: true })
    ).toBuffer({ resolveWithObject: true });
    return {
      contentType: png ? "image/png" : "image/jpeg",
      bytes: data,
      width: info.width,
      height: info.height,
    };
  } catch (err) {
    if (err instanceof ImageRefused) throw err;
    // libvips' own words name the decoder's problem ("Input image exceeds pixel limit", "VipsJpeg: …").
    throw new ImageRefused(
      `The image could not be decoded: ${String((err as Error).message ?? err).slice(0, 200)}`,
    );
  }
}
