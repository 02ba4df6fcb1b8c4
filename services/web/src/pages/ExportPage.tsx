// Export: the account's links as CSV or JSON and its clicks as CSV. These are plain links to the export
// endpoints: GET requests carry the session cookie and need no CSRF token, and the browser streams the
// download to disk (the endpoints stream too, so a large account costs no memory here).
import { EXPORT_ROUTES, type ExportDimension } from "@kurz/contracts";
import { useState } from "preact/hooks";
import { urlOf } from "../api/client.ts";
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

export function ExportPage() {
  const [dimension, setDimension] = useState<ExportDimension>("none");
  const [start, setStart] = useState("");
  const [end, setEnd] = useState("");
  const badRange = start !== "" && end !== "" && start > end;
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
            <a
              class="btn primary"
              href={urlOf(EXPORT_ROUTES.exportLinks, { query: { format: "csv" } })}
              download
            >
              Download CSV
            </a>
            <a class="btn" href={urlOf(EXPORT_ROUTES.exportLinks, { query: { format: "json" } })} download>
              Download JSON
            </a>
          </div>
        </section>
        <section class="card" aria-labelledby="export-analytics">
          <h2 id="export-analytics" class="card-title">
            Analytics
          </h2>
          <p class="muted small">Clicks of every link per day, as CSV; optionally broken down further.</p>
          <div class="field">
            <label for="export-dimension">Rows</label>
            <select
              id="export-dimension"
              value={dimension}
              onChange={(e) => setDimension(e.currentTarget.value as ExportDimension)}
            >
              {DIMENSIONS.map((d) => (
                <option key={d.value} value={d.value}>
                  {d.label}
                </option>
              ))}
            </select>
          </div>
          <div class="grid-2">
            <div class="field">
              <label for="export-start">From (optional)</label>
              <input
                id="export-start"
                type="date"
                value={start}
                onInput={(e) => setStart(e.currentTarget.value)}
              />
            </div>
            <div class="field">
              <label for="export-end">To (optional)</label>
              <input
                id="export-end"
                type="date"
                value={end}
                onInput={(e) => setEnd(e.currentTarget.value)}
                aria-invalid={badRange ? true : undefined}
                aria-describedby={badRange ? "export-range-error" : undefined}
              />
            </div>
          </div>
          {badRange && (
            <p class="field-error" id="export-range-error">
              The start must not be after the end.
            </p>
          )}
          <div class="toolbar">
            {badRange ? (
              <button type="button" class="btn primary" disabled>
                Download analytics CSV
              </button>
            ) : (
              <a class="btn primary" href={analyticsUrl} download>
                Download analytics CSV
              </a>
            )}
          </div>
        </section>
      </div>
    </>
  );
}

export default ExportPage;
