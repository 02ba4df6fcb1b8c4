import type { IncomingMessage } from "node:http";

/** The largest form the redirect reads: a link's password, an overlay's contact form. */
export const MAX_FORM_BYTES = 4096;

export type FormResult =
  | { ok: true; fields: URLSearchParams }
  | { ok: false; reason: "too_large" | "unsupported" | "aborted" };

/** Reads a small application/x-www-form-urlencoded body, refusing anything past `limit` bytes. */
export function readForm(req: IncomingMessage, limit: number): Promise<FormResult> {
  const type = (req.headers["content-type"] ?? "").split(";", 1)[0]!.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    req.resume();
    return Promise.resolve({ ok: false, reason: "unsupported" });
  }
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > limit) {
    req.resume();
    return Promise.resolve({ ok: false, reason: "too_large" });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (r: FormResult) => {
      if (done) return;
      done = true;
      resolve(r);
    };
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // Stop buffering but keep reading, so the 413 can still be written on this connection.
        chunks.length = 0;
        finish({ ok: false, reason: "too_large" });
        return;
      }
      if (!done) chunks.push(chunk);
    });
    req.on("end", () =>
      finish({ ok: true, fields: new URLSearchParams(Buffer.concat(chunks).toString("utf8")) }),
    );
    req.on("error", () => finish({ ok: false, reason: "aborted" }));
    req.on("aborted", () => finish({ ok: false, reason: "aborted" }));
  });
}
