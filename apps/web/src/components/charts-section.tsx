import Link from "next/link";
import { utc } from "../lib/format.js";
import { instanceHref } from "../lib/paths.js";
import { RANGE_LABELS, type RangeKey } from "../lib/ranges.js";
import { getInstanceCharts } from "../server/data.js";
import { type ChartData, Charts } from "./charts.js";

/** The write path over the chosen range; the range picker is plain links (URL state, no script needed). */
export async function ChartsSection({ instance, range }: { instance: string; range: RangeKey | null }) {
  const view = await getInstanceCharts(instance, range);
  const data: ChartData[] =
    view.charts?.charts.map((c) => ({
      id: c.id,
      title: c.title,
      unit: c.unit,
      series: c.series.map((s) => ({
        name: s.name,
        points: s.points.map(([t, v]) => [t, Number.isFinite(v) ? v : null] as const),
      })),
    })) ?? [];
  return (
    <>
      {view.ranges.length > 0 && (
        <nav aria-label="Chart range" className="range-picker" style={{ marginBottom: "0.75rem" }}>
          {view.ranges.map((r) => (
            <Link
              key={r.key}
              href={`${instanceHref(instance)}?range=${r.key}#charts-title`}
              aria-current={view.range?.key === r.key ? "true" : undefined}
              scroll={false}
            >
              {RANGE_LABELS[r.key]}
            </Link>
          ))}
        </nav>
      )}
      {view.error && (
        <div className={`banner ${view.stale ? "banner-bad" : "banner-warn"}`} role="alert">
          <strong>
            {view.stale ? "Charts are stale: the source is failing." : "Charts are unavailable."}
          </strong>
          {view.error}
        </div>
      )}
      {view.range && view.charts && (
        <p className="subtle">
          {utc(view.range.start)} to {utc(view.range.end)}, a point every {view.range.step} s
          {view.charts.warnings.length > 0 ? ` · ${view.charts.warnings.join("; ")}` : ""}
        </p>
      )}
      {data.length > 0 && <Charts charts={data} />}
    </>
  );
}
