// On a phone, every list table is shown as one card per row (styles.css, "tables on a phone"), where a
// cell no longer sits under its column's header. Each body cell is given its header's text as
// `data-label`, which the phone layout shows before the value ("Last used: …"). Done once for every
// page, whenever rows appear, so no page has to repeat its headers in each cell.

const labelled = (table: HTMLTableElement) => {
  const heads = table.tHead?.rows[0]?.cells;
  if (!heads) return;
  // A header only screen readers see (the row's buttons) labels nothing.
  const names = Array.from(heads, (th) =>
    th.querySelector(".sr-only")?.textContent === th.textContent ? "" : (th.textContent?.trim() ?? ""),
  );
  for (const body of Array.from(table.tBodies)) {
    for (const row of Array.from(body.rows)) {
      Array.from(row.cells).forEach((cell, i) => {
        const name = names[i];
        if (name && cell.getAttribute("data-label") !== name) cell.setAttribute("data-label", name);
      });
    }
  }
};

/** Labels the cells of `.table-card` tables now and after every change to the page. */
export function labelTableCells(root: HTMLElement = document.body): void {
  let queued = false;
  const run = () => {
    queued = false;
    for (const t of Array.from(root.querySelectorAll<HTMLTableElement>(".table-card table"))) labelled(t);
  };
  new MutationObserver(() => {
    if (queued) return;
    queued = true;
    queueMicrotask(run);
  }).observe(root, { childList: true, subtree: true });
  run();
}
