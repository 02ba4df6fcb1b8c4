// Renders QR images of short URLs. A 400 px PNG costs ~8 ms of CPU, so rendered images
// are kept in a byte-bounded LRU keyed by everything that shapes the image; repeats cost nothing.
import { QR_CONTENT_TYPES, type QrQuery } from "@kurz/contracts";
import { LRUCache } from "lru-cache";
import QRCode from "qrcode";

export interface QrImage {
  body: Buffer;
  contentType: string;
}

export class QrRenderer {
  private readonly cache: LRUCache<string, QrImage>;
  // Concurrent requests for the same uncached image share one render.
  private readonly pending = new Map<string, Promise<QrImage>>();

  constructor(maxBytes: number) {
    this.cache = new LRUCache<string, QrImage>({
      maxSize: maxBytes,
      sizeCalculation: (image, key) => image.body.length + key.length,
    });
  }

  async render(text: string, params: QrQuery): Promise<QrImage> {
    const cacheKey = JSON.stringify([
      text,
      params.format,
      params.size,
      params.color,
      params.bg,
      params.ec,
      params.margin,
    ]);
    const hit = this.cache.get(cacheKey);
    if (hit) return hit;
    let rendering = this.pending.get(cacheKey);
    if (!rendering) {
      rendering = draw(text, params).finally(() => this.pending.delete(cacheKey));
      this.pending.set(cacheKey, rendering);
      rendering.then((image) => this.cache.set(cacheKey, image)).catch(() => {});
    }
    return rendering;
  }
}

async function draw(text: string, params: QrQuery): Promise<QrImage> {
  const options = {
    errorCorrectionLevel: params.ec,
    margin: params.margin,
    width: params.size,
    // qrcode takes RGBA hex; a fully transparent light colour gives a transparent background.
    color: { dark: `${params.color}FF`, light: params.bg === "transparent" ? "#00000000" : `${params.bg}FF` },
  };
  if (params.format === "svg") {
    const svg = await QRCode.toString(text, { ...options, type: "svg" });
    return { body: Buffer.from(svg), contentType: QR_CONTENT_TYPES.svg };
  }
  const png = await QRCode.toBuffer(text, { ...options, type: "png" });
  return { body: png, contentType: QR_CONTENT_TYPES.png };
}
