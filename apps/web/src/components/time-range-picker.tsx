import { TIME_RANGE_PRESETS } from "@untorn/prom/duration";
import Link from "next/link";
import { RANGE_LABELS } from "../lib/ranges.js";

/**
 * The time range as links (one per preset) and a custom duration, all plain URL state: `?range=` with the
 * page's other parameters kept, so it works without script and from the keyboard (Tab, Enter).
 */
export function TimeRangePicker({
  path,
  params,
  current,
  defaultKey,
  extra = [],
  hash = "",
}: {
  /** The page's path. */
  path: string;
  /** The page's other parameters, kept on every link and by the custom form. */
  params: URLSearchParams;
  /** The range in the URL, or null. */
  current: string | null;
  /** The key shown as current when the URL names none. */
  defaultKey: string | null;
  /** Keys offered after the presets (the instance page's `all`). */
  extra?: readonly string[];
  hash?: string;
}) {
  const keys: string[] = [...TIME_RANGE_PRESETS, ...extra];
  const shown = current ?? defaultKey;
  const custom = current !== null && !keys.includes(current) ? current : "";
  const href = (key: string) => {
    const p = new URLSearchParams(params);
    p.set("range", key);
    return `${path}?${p.toString()}${hash}`;
  };
  return (
    <div className="range-bar" data-testid="time-range">
      <nav aria-label="Time range" className="range-picker">
        {keys.map((k) => (
          <Link
            key={k}
            href={href(k)}
            aria-current={shown === k ? "true" : undefined}
            aria-label={RANGE_LABELS[k as keyof typeof RANGE_LABELS] ?? k}
            scroll={false}
          >
            {k}
          </Link>
        ))}
      </nav>
      <form method="get" action={path} className="range-custom">
        {[...params].map(([k, v]) => (
          <input key={`${k}=${v}`} type="hidden" name={k} value={v} />
        ))}
        <label>
          Custom range{" "}
          <input
            type="text"
            name="range"
            defaultValue={custom}
            placeholder="90m"
            size={6}
            maxLength={40}
            aria-describedby="range-custom-hint"
          />
        </label>
        <button type="submit">Apply</button>
        <span id="range-custom-hint" className="subtle">
          a PromQL duration, 30s to 30d
        </span>
      </form>
    </div>
  );
}
