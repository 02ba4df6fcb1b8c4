// Top-N lists as plain CSS bars: a list of rows whose bar width is the share of the largest count.
interface Props {
  title: string;
  rows: { label: string; count: number }[];
  empty?: string;
}

export function BarList({ title, rows, empty = "No data in this period" }: Props) {
  const max = Math.max(1, ...rows.map((r) => r.count));
  return (
    <section class="card bar-list" aria-label={title}>
      <h3>{title}</h3>
      {rows.length === 0 ? (
        <p class="muted">{empty}</p>
      ) : (
        <ul>
          {rows.map((r) => (
            <li key={r.label}>
              <span class="bar" style={{ width: `${(r.count / max) * 100}%` }} />
              <span class="bar-label" title={r.label}>
                {r.label}
              </span>
              <span class="bar-count">{r.count.toLocaleString()}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
