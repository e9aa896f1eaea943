import type { GateResult } from "@untorn/rollout/events";
import { utc } from "../../lib/format.js";
import { GATE_TEXT } from "../../lib/rollout-view.js";
import { CheckTable } from "../check-table.js";
import { OutcomeBadge } from "./badges.js";

/** One gate decision with its evidence: every check, what was expected and what was seen. */
export function GateDetails({ gate: g }: { gate: GateResult }) {
  return (
    <details className="gate" data-gate={g.gate} data-outcome={g.outcome}>
      <summary>
        <OutcomeBadge outcome={g.outcome} /> {GATE_TEXT[g.gate]}
        {g.instance ? ` · ${g.instance}` : ""} · {utc(g.at)}: {g.summary}
      </summary>
      {g.checks.length > 0 && (
        <CheckTable
          label={`Checks of the ${GATE_TEXT[g.gate].toLowerCase()} of wave ${g.wave}`}
          columns={["Check", "Expected", "Seen", "Outcome", "Detail"]}
          rows={g.checks.map((c) => ({
            key: `${c.id}-${c.instance ?? ""}-${c.metric ?? ""}-${c.expected}`,
            cells: [
              <>
                {c.id}
                {c.instance ? <div className="subtle">{c.instance}</div> : null}
                {c.metric ? <div className="subtle">{c.metric}</div> : null}
              </>,
              c.expected,
              c.observed,
              <OutcomeBadge key="outcome" outcome={c.outcome} />,
              c.message,
            ],
          }))}
        />
      )}
    </details>
  );
}
