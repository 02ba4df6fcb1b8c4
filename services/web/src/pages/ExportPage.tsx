// Export: the workspace's links as CSV or JSON and its clicks as CSV. These are links to the export
// endpoints: GET requests carry the session cookie and need no CSRF token, and in the person's first
// workspace the browser streams the download to disk (the endpoints stream too, so a large workspace
// costs no memory here); in another, DownloadLink fetches it with the workspace's header.
import { EXPORT_ROUTES, type ExportDimension } from "@kurz/contracts";
import { useState } from "preact/hooks";
import { urlOf } from "../api/client.ts";
import { FormField, SelectField } from "../components/FormField.tsx";
import { DownloadLink } from "../components/WorkspaceFiles.tsx";
import { PageHead } from "./common.tsx";
import "./data/data.css";

const DIMENSIONS: { value: ExportDimension; label: string }[] = [
  { value: "none", label: "Clicks per link and day" },
  { value: "referrer", label: "… and referrer" },
  { value: "country", label: "… and country" },
  { value: "city", label: "… and city" },
  { value: "device", label: "… and device" },
  { value: "browser", label: "… and browser" },
  { value: "os", label: "… and operating system" },
];

/** Both days given, the first after the last: there is nothing between them to export. */
const badRange = (start: string, end: string) => start !== "" && end !== "" && start > end;

/** A day; `errorId` names the message, shown elsewhere, that says what is wrong with it. */
function DateField({
  id,
  label,
  value,
  onValue,
  errorId,
}: {
  id: string;
  label: string;
  value: string;
  onValue: (value: string) => void;
  errorId?: string;
}) {
  return (
    <FormField id={id} label={label}>
      <input
        id={id}
        type="date"
        value={value}
        onInput={(e) => onValue(e.currentTarget.value)}
        aria-invalid={errorId ? true : undefined}
        aria-describedby={errorId}
      />
    </FormField>
  );
}

/** The optional first and last day of the clicks exported; a start after the end is said under both. */
function DayRange({
  start,
  end,
  onStart,
  onEnd,
}: {
  start: string;
  end: string;
  onStart: (day: string) => void;
  onEnd: (day: string) => void;
}) {
  const bad = badRange(start, end);
  return (
    <>
      <div class="grid-2">
        <DateField id="export-start" label="From (optional)" value={start} onValue={onStart} />
        <DateField
          id="export-end"
          label="To (optional)"
          value={end}
          onValue={onEnd}
          errorId={bad ? "export-range-error" : undefined}
        />
      </div>
      {bad && (
        <p class="field-error" id="export-range-error">
          The start must not be after the end.
        </p>
      )}
    </>
  );
}

export function ExportPage() {
  const [dimension, setDimension] = useState<ExportDimension>("none");
  const [start, setStart] = useState("");
  const [end, setEnd] = useState("");
  const analyticsUrl = urlOf(EXPORT_ROUTES.exportAnalytics, {
    query: { dimension, start: start || undefined, end: end || undefined },
  });
  return (
    <>
      <PageHead title="Export" />
      <p class="muted">Take your data with you, whenever you like. Files are made as you download them.</p>
      <div class="export-grid">
        <section class="card" aria-labelledby="export-links">
          <h2 id="export-links" class="card-title">
            Links
          </h2>
          <p class="muted small">
            Every link with every field: short URL, destination, title, state, expiry, clicks, dates.
          </p>
          <div class="toolbar">
            <DownloadLink
              class="btn primary"
              href={urlOf(EXPORT_ROUTES.exportLinks, { query: { format: "csv" } })}
            >
              Download CSV
            </DownloadLink>
            <DownloadLink class="btn" href={urlOf(EXPORT_ROUTES.exportLinks, { query: { format: "json" } })}>
              Download JSON
            </DownloadLink>
          </div>
        </section>
        <section class="card" aria-labelledby="export-analytics">
          <h2 id="export-analytics" class="card-title">
            Analytics
          </h2>
          <p class="muted small">Clicks of every link per day, as CSV; optionally broken down further.</p>
          <SelectField
            id="export-dimension"
            label="Rows"
            value={dimension}
            options={DIMENSIONS}
            onValue={setDimension}
          />
          <DayRange start={start} end={end} onStart={setStart} onEnd={setEnd} />
          <div class="toolbar">
            {badRange(start, end) ? (
              <button type="button" class="btn primary" disabled>
                Download analytics CSV
              </button>
            ) : (
              <DownloadLink class="btn primary" href={analyticsUrl}>
                Download analytics CSV
              </DownloadLink>
            )}
          </div>
        </section>
      </div>
    </>
  );
}

export default ExportPage;
