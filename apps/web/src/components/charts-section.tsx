import { utc } from "../lib/format.js";
import { instanceHref } from "../lib/paths.js";
import { getInstanceCharts } from "../server/fleet/instance.js";
import { type ChartData, Charts } from "./charts.js";
import { TimeRangePicker } from "./time-range-picker.js";

/** The write path over the chosen range; the range picker is plain links (URL state, no script needed). */
export async function ChartsSection({ instance, range }: { instance: string; range: string | null }) {
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
        <TimeRangePicker
          path={instanceHref(instance)}
          params={new URLSearchParams()}
          current={view.range?.key ?? range}
          defaultKey={null}
          extra={view.ranges.some((r) => r.key === "all") ? ["all"] : []}
          hash="#charts-title"
        />
      )}
      {view.note && (
        <div className="banner banner-warn" role="status" data-testid="range-note">
          <strong>Range not in the recording.</strong> {view.note}
        </div>
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
