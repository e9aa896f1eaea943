import type { GateResult } from "@untorn/rollout/events";
import { utc } from "../../lib/format.js";
import {
  againstOf,
  effectText,
  intervalText,
  OUTCOME_MEANING,
  OUTCOME_TEXT,
  qualityFlags,
} from "../../lib/rollout-view.js";
import { OutcomeBadge } from "./badges.js";

const ROLE_TEXT = {
  guardrail: "guardrail (must not regress)",
  expected: "expected effect",
  informative: "informative (never decides)",
} as const;

/** The bake judgement of a wave: per metric the effect, its interval, compare's verdict and the outcome. */
export function ComparisonTable({ gate: g, hasControls }: { gate: GateResult; hasControls: boolean }) {
  const rows = g.judgement ?? [];
  if (rows.length === 0) return <p className="subtle">No metric was judged in this evaluation.</p>;
  const windows = g.windows;
  return (
    <>
      <p className="subtle">
        Judged {utc(g.at)}
        {windows
          ? `: before ${utc(windows.before.start)} – ${utc(windows.before.end)}, after ${utc(windows.after.start)} – ${utc(windows.after.end)}`
          : ""}
        .{" "}
        {hasControls
          ? "Each effect is the changed instances' change relative to what the untouched control did over the same windows."
          : "No concurrent control for this wave: each effect is after vs before the change on the same instances."}
      </p>
      <div className="table-scroll">
        <table className="data" data-testid={`comparison-wave-${g.wave}`}>
          <caption className="visually-hidden">Comparison of wave {g.wave}</caption>
          <thead>
            <tr>
              <th scope="col">Metric</th>
              <th scope="col">Role</th>
              <th scope="col">Effect</th>
              <th scope="col">95% interval</th>
              <th scope="col">Verdict</th>
              <th scope="col">Criterion</th>
              <th scope="col">Outcome</th>
              <th scope="col">Data quality</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((j) => {
              const flags = qualityFlags(g, j.metric);
              return (
                <tr key={j.metric} data-metric={j.metric}>
                  <th scope="row">{j.metric}</th>
                  <td>{ROLE_TEXT[j.role]}</td>
                  <td>{effectText(j, againstOf(g, j.metric, hasControls))}</td>
                  <td>{intervalText(j)}</td>
                  <td>{j.verdict}</td>
                  <td>{j.criterion}</td>
                  <td>
                    <OutcomeBadge outcome={j.outcome} />
                  </td>
                  <td>{flags.length === 0 ? <span className="subtle">clean</span> : flags.join("; ")}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** What the outcomes mean: said once under the tables. */
export function OutcomeLegend() {
  return (
    <dl className="legend subtle">
      {(["pass", "fail", "inconclusive", "no-data"] as const).map((o) => (
        <div key={o}>
          <dt>{OUTCOME_TEXT[o]}</dt>
          <dd>{OUTCOME_MEANING[o]}.</dd>
        </div>
      ))}
    </dl>
  );
}
