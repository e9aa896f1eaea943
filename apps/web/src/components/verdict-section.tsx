import type { Verdict } from "@untorn/advisor/verdict";
import { num, pct, withUnit } from "../lib/format.js";
import { VerdictBadge } from "./badges.js";
import { Cited } from "./cited.js";

const STATE: Record<string, { label: string; cls: string }> = {
  strong: { label: "strong", cls: "badge-bad" },
  partial: { label: "partial", cls: "badge-warn" },
  clear: { label: "clear", cls: "badge-ok" },
  missing: { label: "missing", cls: "badge-outline" },
  "not-applicable": { label: "n/a", cls: "badge-outline" },
};

/** The verdict and the evidence chain behind it: every signal with its value, thresholds and weight. */
export function VerdictSection({ verdict }: { verdict: Verdict }) {
  return (
    <section className="section" aria-labelledby="verdict-title">
      <h2 id="verdict-title">Write-bound verdict</h2>
      <p>
        <VerdictBadge verdict={verdict.verdict} /> score {num(verdict.score)} · confidence{" "}
        <strong data-testid="verdict-confidence">{pct(verdict.confidence)}</strong>
      </p>
      <p data-testid="verdict-summary">{verdict.summary}</p>
      <h3>Evidence</h3>
      <div className="table-scroll">
        <table className="data" aria-label="Evidence for the verdict">
          <thead>
            <tr>
              <th scope="col">Signal</th>
              <th scope="col" className="num">
                Value
              </th>
              <th scope="col">Judged on</th>
              <th scope="col" className="num">
                Partial / strong
              </th>
              <th scope="col">State</th>
              <th scope="col" className="num">
                Weight
              </th>
              <th scope="col">Why it matters</th>
            </tr>
          </thead>
          <tbody>
            {verdict.evidence.map((e) => {
              const s = STATE[e.state] ?? { label: e.state, cls: "" };
              return (
                <tr key={e.signal}>
                  <th scope="row">{e.label}</th>
                  <td className="num">{withUnit(e.value, e.unit)}</td>
                  <td>{e.statistic === "p95" ? "p95 of steps" : "window average"}</td>
                  <td className="num">
                    {withUnit(e.threshold.partial, e.unit)} / {withUnit(e.threshold.strong, e.unit)}
                  </td>
                  <td>
                    <span className={`badge ${s.cls}`}>{s.label}</span>
                  </td>
                  <td className="num">{num(e.weight)}</td>
                  <td>
                    <Cited text={e.why} />
                    {e.state === "missing" && e.howToGet && (
                      <div className="subtle">
                        To collect: <Cited text={e.howToGet} />
                      </div>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {verdict.context.length > 0 && (
        <>
          <h3>Context</h3>
          <ul>
            {verdict.context.map((c) => (
              <li key={c}>
                <Cited text={c} />
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
