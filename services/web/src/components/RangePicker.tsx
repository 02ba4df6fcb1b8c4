import { RANGE_LABELS, type Range, type RangeKey } from "../ranges.ts";

const KEYS: RangeKey[] = ["7d", "30d", "90d", "all", "custom"];

export function RangePicker({ value, onChange }: { value: Range; onChange: (r: Range) => void }) {
  return (
    <div class="range-picker">
      <fieldset class="segmented">
        <legend class="sr-only">Date range</legend>
        {KEYS.map((key) => (
          <label key={key} class={value.key === key ? "on" : ""}>
            <input
              type="radio"
              name="range"
              value={key}
              checked={value.key === key}
              onChange={() => onChange({ ...value, key })}
            />
            {RANGE_LABELS[key]}
          </label>
        ))}
      </fieldset>
      {value.key === "custom" && (
        <div class="custom-range">
          <label>
            From
            <input
              type="date"
              value={value.from ?? ""}
              max={value.to}
              onChange={(e) => onChange({ ...value, from: e.currentTarget.value })}
            />
          </label>
          <label>
            To
            <input
              type="date"
              value={value.to ?? ""}
              min={value.from}
              onChange={(e) => onChange({ ...value, to: e.currentTarget.value })}
            />
          </label>
        </div>
      )}
    </div>
  );
}
