// The CSV export of a contact overlay's submissions, the same for both API generations: every field
// quoted, as docs/legacy-api.md documents it.
import { toLegacyDateTime } from "@kurz/contracts";
import type { OverlaySubmission } from "@kurz/db";
import { csvLine } from "@kurz/service-kit";

const COLUMNS = ["id", "date", "link_id", "name", "email", "phone", "message"];

export const submissionsCsv = (rows: readonly OverlaySubmission[]): Buffer =>
  Buffer.from(
    [
      csvLine(COLUMNS, { quoteAll: true }),
      ...rows.map((s) =>
        csvLine([s.id, toLegacyDateTime(s.createdAt), s.linkId, s.name, s.email, s.phone, s.message], {
          quoteAll: true,
        }),
      ),
    ].join(""),
  );

export const csvDisposition = (overlayId: number) =>
  `attachment; filename="overlay-${overlayId}-submissions.csv"`;
