import type { GateResult } from "@untorn/rollout/events";
import { utc } from "../../lib/format.js";
import { GATE_TEXT } from "../../lib/rollout-view.js";
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
        <div className="table-scroll">
          <table className="data">
            <caption className="visually-hidden">
              Checks of the {GATE_TEXT[g.gate].toLowerCase()} of wave {g.wave}
            </caption>
            <thead>
              <tr>
                <th scope="col">Check</th>
                <th scope="col">Expected</th>
                <th scope="col">Seen</th>
                <th scope="col">Outcome</th>
                <th scope="col">Detail</th>
              </tr>
            </thead>
            <tbody>
              {g.checks.map((c) => (
                <tr key={`${c.id}-${c.instance ?? ""}-${c.metric ?? ""}-${c.expected}`}>
                  <th scope="row">
                    {c.id}
                    {c.instance ? <div className="subtle">{c.instance}</div> : null}
                    {c.metric ? <div className="subtle">{c.metric}</div> : null}
                  </th>
                  <td>{c.expected}</td>
                  <td>{c.observed}</td>
                  <td>
                    <OutcomeBadge outcome={c.outcome} />
                  </td>
                  <td>{c.message}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </details>
  );
}
