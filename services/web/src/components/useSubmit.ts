// A form's submission: the default action stopped, the form busy while `action` runs, and its failure
// kept for the form to show. A form that leaves the page on success may stay busy: it is gone.
import { useState } from "preact/hooks";

export function useSubmit(action: () => Promise<unknown>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (e?: Event) => {
    e?.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, submit };
}
