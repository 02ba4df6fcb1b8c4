// The CSV export of a contact overlay's submissions, the same for both API generations.
import { toLegacyDateTime } from "@kurz/contracts";
import type { OverlaySubmission } from "@kurz/db";
import { toCsv } from "../exports/csv.ts";

export const submissionsCsv = (rows: readonly OverlaySubmission[]): Buffer =>
  Buffer.from(
    toCsv(
      ["id", "date", "link_id", "name", "email", "phone", "message"],
      rows.map((s) => [s.id, toLegacyDateTime(s.createdAt), s.linkId, s.name, s.email, s.phone, s.message]),
    ),
  );

export const csvDisposition = (overlayId: number) =>
  `attachment; filename="overlay-${overlayId}-submissions.csv"`;
