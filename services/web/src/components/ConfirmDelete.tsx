import type { ComponentChildren } from "preact";
import { invalidate } from "../api/cache.ts";
import { Confirm } from "./Confirm.tsx";

/** Asks before deleting one item; on yes, deletes it and refetches the lists (cache keys) it was in. */
export function ConfirmDelete({
  title,
  confirmLabel,
  remove,
  invalidates,
  onClose,
  children,
}: {
  title: string;
  confirmLabel: string;
  remove: () => Promise<unknown>;
  invalidates: string[];
  onClose: () => void;
  children: ComponentChildren;
}) {
  return (
    <Confirm
      title={title}
      confirmLabel={confirmLabel}
      danger
      onClose={onClose}
      onConfirm={async () => {
        await remove();
        invalidate(...invalidates);
      }}
    >
      {children}
    </Confirm>
  );
}
