/** A form's outcome: its success announced politely, its failure as an alert. */
export function FormStatus({ ok, error }: { ok?: string; error?: string }) {
  return (
    <>
      <div role="status" aria-live="polite">
        {ok && <p class="ok">{ok}</p>}
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}
