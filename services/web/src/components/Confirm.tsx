// A modal confirmation on the native <dialog>: focus is trapped and Escape cancels, as browsers do it.
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";

interface Props {
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  danger?: boolean;
  onConfirm: () => Promise<void> | void;
  onClose: () => void;
}

export function Confirm({ title, children, confirmLabel, danger, onConfirm, onClose }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  useEffect(() => {
    ref.current?.showModal();
  }, []);
  const confirm = async () => {
    setBusy(true);
    setError("");
    try {
      await onConfirm();
      onClose();
    } catch (err) {
      setError(err instanceof Error ? err.message : "Something went wrong.");
      setBusy(false);
    }
  };
  return (
    <dialog ref={ref} class="dialog" aria-labelledby="confirm-title" onClose={onClose}>
      <h2 id="confirm-title">{title}</h2>
      <div class="dialog-body">{children}</div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <div class="dialog-actions">
        <button type="button" class="btn" onClick={onClose}>
          Cancel
        </button>
        <button
          type="button"
          class={`btn ${danger ? "danger" : "primary"}`}
          disabled={busy}
          onClick={confirm}
        >
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
