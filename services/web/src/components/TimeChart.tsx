// Clicks over time, drawn by uPlot (MIT, ~20 KB gzip, canvas): decision 0024. The canvas is
// described for screen readers by a summary line and a visually hidden table of the non-zero buckets.
import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

interface Props {
  xs: number[];
  ys: number[];
  hourly: boolean;
  label: string;
}

export function TimeChart({ xs, ys, hourly, label }: Props) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const width = () => Math.max(280, el.clientWidth);
    const plot = new uPlot(
      {
        width: width(),
        height: 220,
        legend: { show: false },
        cursor: { y: false, points: { size: 8 } },
        scales: {
          x: { time: true },
          y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.15))] },
        },
        axes: [
          {
            stroke: "#6b6560",
            grid: { show: false },
            ticks: { show: false },
            font: "12px system-ui, sans-serif",
          },
          {
            stroke: "#6b6560",
            grid: { stroke: "#eee9e3", width: 1 },
            ticks: { show: false },
            size: 40,
            font: "12px system-ui, sans-serif",
            incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000],
          },
        ],
        series: [
          {},
          {
            label: "Clicks",
            stroke: "#c2410c",
            width: 2,
            fill: "rgba(194,65,12,0.08)",
            points: { show: xs.length < 40 },
          },
        ],
      },
      [xs, ys],
      el,
    );
    const observer = new ResizeObserver(() => plot.setSize({ width: width(), height: 220 }));
    observer.observe(el);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [xs, ys]);

  const total = ys.reduce((a, b) => a + b, 0);
  const fmt = (t: number) =>
    hourly
      ? new Date(t * 1000).toLocaleString(undefined, { month: "short", day: "numeric", hour: "2-digit" })
      : new Date(t * 1000).toLocaleDateString(undefined, { month: "short", day: "numeric", year: "numeric" });
  const rows = xs.map((x, i) => [x, ys[i] ?? 0] as const).filter(([, y]) => y > 0);
  return (
    <figure class="chart" aria-label={label}>
      <div ref={box} class="chart-canvas" data-testid="time-chart" data-total={total} aria-hidden="true" />
      <figcaption class="sr-only">
        {label}: {total} clicks.
        <table>
          <caption>Clicks per {hourly ? "hour" : "day"}</caption>
          <tbody>
            {rows.map(([x, y]) => (
              <tr key={x}>
                <th scope="row">{fmt(x)}</th>
                <td>{y}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </figcaption>
    </figure>
  );
}
