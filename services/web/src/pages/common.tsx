import type { ComponentChildren } from "preact";
import { useEffect } from "preact/hooks";
import { messageOf } from "../api/client.ts";

export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Kurz`;
  }, [title]);
}

export function PageHead({ title, children }: { title: string; children?: ComponentChildren }) {
  useTitle(title);
  return (
    <div class="page-head">
      <h1>{title}</h1>
      {children && <div class="page-actions">{children}</div>}
    </div>
  );
}

export function Loading({ what = "Loading" }: { what?: string }) {
  return (
    <p class="muted loading" role="status">
      {what}…
    </p>
  );
}

/** A failure as an alert, in the words `explain` gives it (by default, the server's message). */
export function Failed({
  error,
  explain = messageOf,
}: {
  error: unknown;
  explain?: (error: unknown) => string;
}) {
  return (
    <p class="error" role="alert">
      {explain(error)}
    </p>
  );
}

/**
 * What the last action did: read out by screen readers from the status line, shown on screen in the
 * banner (hidden from them, so it is not read twice).
 */
export function Notice({ text }: { text: string }) {
  return (
    <>
      <p class="sr-only" role="status" aria-live="polite">
        {text}
      </p>
      {text && (
        <p class="notice" aria-hidden="true">
          {text}
        </p>
      )}
    </>
  );
}

export function Stat({
  label,
  value,
  testid,
}: {
  label: string;
  value: number | string | undefined;
  testid?: string;
}) {
  return (
    <div class="card stat">
      <div class="stat-label">{label}</div>
      <div class="stat-value" data-testid={testid}>
        {value === undefined ? "–" : typeof value === "number" ? value.toLocaleString() : value}
      </div>
    </div>
  );
}

/**
 * A link whose destination failed two health checks in a row (docs/health.md); nothing otherwise. The
 * title says since when, and the words say it without colour.
 */
export function BrokenBadge({ link }: { link: { broken_since?: string | null | undefined } }) {
  if (!link.broken_since) return null;
  return (
    <span class="pill bad" title={`Broken since ${fmtDate(link.broken_since)}`} data-testid="broken-badge">
      Broken
    </span>
  );
}

export const fmtDate = (iso: string | null | undefined, empty = "Never") =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }) : empty;
export const fmtDay = (iso: string | null | undefined, empty = "—") =>
  iso ? new Date(iso).toLocaleDateString(undefined, { dateStyle: "medium" }) : empty;
