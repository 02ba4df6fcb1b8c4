import type { ComponentChildren } from "preact";

/**
 * A small button in a table row or list item. Its visible words say what it does; `item` names the row
 * for screen readers ("Delete" reads "Delete Spring sale"), so every row's button has its own name.
 */
export function RowButton({
  item,
  class: extra,
  onClick,
  children,
}: {
  item: string;
  class?: string;
  onClick: () => void;
  children: ComponentChildren;
}) {
  return (
    <button type="button" class={extra ? `btn small ${extra}` : "btn small"} onClick={onClick}>
      {children}
      <span class="sr-only"> {item}</span>
    </button>
  );
}
