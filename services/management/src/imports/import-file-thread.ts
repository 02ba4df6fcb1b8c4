// The thread side of import-file-threads.ts: reads an import file (import-file.ts) and checks its rows
// (import-rows.ts) away from the event loop that serves requests. A `count` reads a file for its format
// and number of rows (an upload's answer); an `open` reads it and keeps its rows for `next`, which
// checks and sends the following batch of rows only when asked, so the service's thread decodes one
// batch at a time and the rows of a file are never all sent at once.
import { setPriority } from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import type { ImportFormat } from "@kurz/contracts";
import { ImportFileError, type RawImportRow, readImportFile } from "./import-file.ts";
import { type CheckedRow, type CodeOptions, checkImportRow, type RowOptions } from "./import-rows.ts";

/** `id` names the request (its reply carries it); `session` names a file opened for its rows. */
export type ThreadRequest =
  | { kind: "count"; id: number; file: Uint8Array; format: ImportFormat | "auto" }
  | {
      kind: "open";
      id: number;
      session: number;
      file: Uint8Array;
      format: ImportFormat | "auto";
      /** Rows before this one (0-based) are not sent: a job resumes after its last committed batch. */
      from: number;
      /** What the job does with a code that is one of Kurz's own paths. */
      codes: CodeOptions;
      batchSize: number;
    }
  | { kind: "next"; id: number; session: number }
  | { kind: "close"; session: number };

export type ThreadReply =
  | { id: number; format: ImportFormat; total: number }
  | { id: number; rows: CheckedRow[] }
  | { id: number; fileError: string }
  | { id: number; error: string };

const port = parentPort;
if (port) {
  try {
    // Below the threads that serve requests (a sign-in's hash), above the import's hash threads.
    setPriority((workerData as { nice: number }).nice);
  } catch {}
  const open = new Map<
    number,
    { rows: RawImportRow[]; next: number; batchSize: number; options: RowOptions }
  >();
  const read = (file: Uint8Array, format: ImportFormat | "auto") =>
    readImportFile(Buffer.from(file.buffer, file.byteOffset, file.byteLength), format);
  port.on("message", (req: ThreadRequest) => {
    if (req.kind === "close") {
      open.delete(req.session);
      return;
    }
    let reply: ThreadReply;
    try {
      if (req.kind === "count") {
        const { format, rows } = read(req.file, req.format);
        reply = { id: req.id, format, total: rows.length };
      } else if (req.kind === "open") {
        const { format, rows } = read(req.file, req.format);
        open.set(req.session, {
          rows,
          next: req.from,
          batchSize: req.batchSize,
          options: { ...req.codes, format },
        });
        reply = { id: req.id, format, total: rows.length };
      } else {
        const session = open.get(req.session);
        if (!session) throw new Error("no open import file with this id");
        const batch = session.rows.slice(session.next, session.next + session.batchSize);
        session.next += batch.length;
        reply = { id: req.id, rows: batch.map((raw) => checkImportRow(raw, session.options)) };
      }
    } catch (err) {
      reply =
        err instanceof ImportFileError
          ? { id: req.id, fileError: err.message }
          : { id: req.id, error: String((err as Error)?.message ?? err) };
    }
    port.postMessage(reply);
  });
}
