import type { RolloutState } from "@untorn/rollout/state";
import { utc } from "../../lib/format.js";
import { getRolloutCharts } from "../../server/rollouts/rollouts.js";
import { type ChartData, Charts } from "../charts.js";

/**
 * Canary vs control around the change point, read through the console's source (live Prometheus or
 * the recording). A failing source says so here; the stored judgements above still show.
 */
export async function RolloutChartsSection({ state }: { state: RolloutState }) {
  const v = await getRolloutCharts(state);
  const data: ChartData[] = v.charts.map((c) => ({
    id: c.id,
    title: c.title,
    unit: c.unit,
    series: c.series,
  }));
  return (
    <>
      {v.error && (
        <div className="banner banner-bad" role="alert" data-testid="rollout-charts-error">
          <strong>
            {v.source.kind === "live"
              ? `Prometheus at ${v.source.url} is unreachable or failing: live charts are unavailable.`
              : "Charts are unavailable."}
          </strong>
          {v.error}
          <p>
            The rollout, its gates and its last stored judgements above are read from the store and stay
            valid.
          </p>
        </div>
      )}
      {v.note && <p className="subtle">{v.note}</p>}
      {v.window && (
        <p className="subtle">
          Wave {v.wave}, {utc(v.window.start)} to {utc(v.window.end)}
          {v.changePoint !== null ? `; change point ${utc(v.changePoint)} (dashed line)` : ""}
          {v.source.kind === "recorded" ? "; recorded data, replayed from the recording" : ""}, a point every{" "}
          {v.window.step} s{v.warnings.length > 0 ? ` · ${v.warnings.join("; ")}` : ""}
        </p>
      )}
      {v.notRecorded.length > 0 && (
        <p className="subtle" data-testid="rollout-charts-not-recorded">
          Not in the recording (no data, not zero): {v.notRecorded.join(", ")}.
        </p>
      )}
      {data.length > 0 && (
        <Charts
          charts={data}
          markers={v.changePoint !== null ? [{ t: v.changePoint, label: "change" }] : []}
        />
      )}
    </>
  );
}
