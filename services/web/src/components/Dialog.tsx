import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";

/** A modal form or message on the native <dialog>. */
export function Dialog({
  title,
  children,
  onClose,
  wide,
}: {
  title: string;
  children: ComponentChildren;
  onClose: () => void;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    ref.current?.showModal();
  }, []);
  return (
    <dialog ref={ref} class={`dialog ${wide ? "wide" : ""}`} aria-labelledby="dialog-title" onClose={onClose}>
      <div class="dialog-head">
        <h2 id="dialog-title">{title}</h2>
        <button type="button" class="icon-btn" aria-label="Close" onClick={onClose}>
          ×
        </button>
      </div>
      {children}
    </dialog>
  );
}

/** A dialog's closing row: its `Done` button, after any other actions given. */
export function DialogDone({ onDone, children }: { onDone: () => void; children?: ComponentChildren }) {
  return (
    <div class="dialog-actions">
      {children}
      <button type="button" class="btn primary" onClick={onDone}>
        Done
      </button>
    </div>
  );
}
