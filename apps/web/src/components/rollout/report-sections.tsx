/** The change report's sections (@untorn/rollout's Report), in the order the printed page shows them. */
import { decisionOf, demoOnlySentence, type Report } from "@untorn/rollout/report";
import Link from "next/link";
import { num, pctRange, utc } from "../../lib/format.js";
import { actorText, intervalText, signedPct } from "../../lib/rollout-view.js";
import type { ReadingInfo, SourceInfo } from "../../server/fleet/data.js";
import { CheckTable } from "../check-table.js";
import { OutcomeBadge, RolloutStatusBadge } from "./badges.js";

type CatchUp = Report["catchUp"][number];
type Lag = CatchUp["lag"][number]["before"];

const lagged = (l: Lag) =>
  l.samples === 0 ? "no data" : `${Math.round(l.laggingSeconds)} s (max ${l.maxSeconds ?? "–"} s)`;
const perSecond = (x: number | null) => (x === null ? "–" : num(x));

const LANG: Record<string, string> = { ini: "my.cnf", sql: "SQL", shell: "shell" };

/** The whole report as one printable article. */
export function ChangeReport({ rep, source }: { rep: Report; source: SourceInfo | ReadingInfo }) {
  return (
    <article className="report" data-testid="change-report">
      <ReportHead rep={rep} source={source} />

      <ReportHypothesis hypothesis={rep.hypothesis} />

      <ReportPlan plan={rep.plan} />

      <ReportGates gates={rep.gates} />

      <ReportEffects effects={rep.effects} />

      <ReportCatchUp catchUp={rep.catchUp} />

      <ReportTimeline timeline={rep.timeline} />

      <ReportRemaining rep={rep} />

      <ReportRevertPlan revertPlan={rep.revertPlan} />
    </article>
  );
}

/** The downloads, the title and the rollout's identity, status and verdict. */
function ReportHead({ rep, source }: { rep: Report; source: SourceInfo | ReadingInfo }) {
  const api = `/api/v1/rollouts/${rep.id}/report`;
  return (
    <>
      <nav className="no-print subtle" aria-label="Report">
        <Link href={`/rollouts/${rep.id}`}>Back to the rollout</Link> ·{" "}
        <a href={`${api}?format=md`} download>
          Download Markdown
        </a>{" "}
        ·{" "}
        <a href={`${api}?format=json`} download>
          Download JSON
        </a>{" "}
        · print this page for a PDF
      </nav>
      <h1>Change report: {rep.title}</h1>
      <ul>
        <li>
          Rollout: <code>{rep.id}</code>
        </li>
        <li>Change: {rep.change}</li>
        <li>
          Status: <RolloutStatusBadge status={rep.status} />
        </li>
        <li data-testid="report-verdict">
          <strong>Verdict: {rep.verdict}</strong>: {rep.verdictReason}
        </li>
        <li>Generated: {utc(rep.generatedAt)}</li>
        {source.kind === "recorded" && (
          <li>
            Data: recorded (a replay of {source.recordedFrom}, recorded {utc(source.recordedAt)})
          </li>
        )}
      </ul>
      <DemoOnlyBanner instances={rep.demoOnly} />
    </>
  );
}

/** Said at the top of every page and report whose gate rests on a demo-only declaration. */
export function DemoOnlyBanner({ instances }: { instances: readonly string[] }) {
  const text = demoOnlySentence(instances);
  return text ? (
    <div className="banner banner-warn" role="note" data-testid="demo-only-banner">
      {text}
    </div>
  ) : null;
}

function ReportHypothesis({ hypothesis }: { hypothesis: Report["hypothesis"] }) {
  return (
    <>
      <h2>Hypothesis</h2>
      <p>{hypothesis.summary}</p>
      <ul>
        {hypothesis.findings.map((f) => (
          <li key={`${f.instance}-${f.ruleId}`}>
            {f.instance}: <strong>{f.title}</strong> ({f.ruleId}). {f.summary}
          </li>
        ))}
      </ul>
    </>
  );
}

/** The waves, then the dry run per instance. */
function ReportPlan({ plan }: { plan: Report["plan"] }) {
  return (
    <>
      <h2>Plan</h2>
      <table className="data">
        <thead>
          <tr>
            <th scope="col">Wave</th>
            <th scope="col">Kind</th>
            <th scope="col">Instances</th>
            <th scope="col">Control</th>
            <th scope="col">Phase</th>
          </tr>
        </thead>
        <tbody>
          {plan.waves.map((w) => (
            <tr key={w.index}>
              <td>{w.index}</td>
              <td>{w.kind}</td>
              <td>{w.instances.join(", ")}</td>
              <td>{w.controls.join(", ") || "before/after"}</td>
              <td>{w.phase}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <DryRunTable dryRun={plan.dryRun} />
    </>
  );
}

function DryRunTable({ dryRun }: { dryRun: Report["plan"]["dryRun"] }) {
  return (
    <table className="data">
      <caption>Dry run per instance</caption>
      <thead>
        <tr>
          <th scope="col">Instance</th>
          <th scope="col">Role</th>
          <th scope="col">Wave</th>
          <th scope="col">Current → target</th>
          <th scope="col">Restart</th>
          <th scope="col">Gate</th>
          <th scope="col">Expected throughput</th>
          <th scope="col">Excluded</th>
        </tr>
      </thead>
      <tbody>
        {dryRun.map((d) => (
          <tr key={d.instance}>
            <td>{d.instance}</td>
            <td>{d.role ?? "–"}</td>
            <td>
              {d.wave ?? "–"}
              {d.control ? " (control)" : ""}
            </td>
            <td>
              {d.current ?? "–"} → {d.target ?? "–"}
            </td>
            <td>{d.restart === null ? "–" : d.restart ? "yes" : "no"}</td>
            <td>{d.gate}</td>
            <td>
              {d.expectedGain ? pctRange(d.expectedGain.throughput.low, d.expectedGain.throughput.high) : "–"}
            </td>
            <td>{d.excluded ?? "–"}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ReportGates({ gates }: { gates: Report["gates"] }) {
  return (
    <>
      <h2>Gates</h2>
      {gates.length === 0 ? (
        <p>No gate decided yet.</p>
      ) : (
        <CheckTable
          label="Gate decisions"
          columns={["Time", "Gate", "Wave", "Instance", "Outcome", "Summary"]}
          headAt={-1}
          rows={gates.map((g) => ({
            key: `${g.at}-${g.gate}-${g.wave}-${g.instance ?? ""}-${g.summary}`,
            cells: [
              utc(g.at),
              g.gate,
              g.wave,
              g.instance ?? "–",
              <OutcomeBadge key="outcome" outcome={g.outcome} />,
              g.summary,
            ],
          }))}
        />
      )}
    </>
  );
}

function ReportEffects({ effects }: { effects: Report["effects"] }) {
  return (
    <>
      <h2>Effect per wave and metric</h2>
      {effects.length === 0 ? (
        <p>No wave has been judged yet.</p>
      ) : (
        <table className="data">
          <thead>
            <tr>
              <th scope="col">Wave</th>
              <th scope="col">Metric</th>
              <th scope="col">Role</th>
              <th scope="col">Change</th>
              <th scope="col">95% interval</th>
              <th scope="col">Verdict</th>
              <th scope="col">Criterion</th>
              <th scope="col">Outcome</th>
            </tr>
          </thead>
          <tbody>
            {effects.map((e) => (
              <tr key={`${e.wave}-${e.metric}`}>
                <td>{e.wave}</td>
                <td>{e.metric}</td>
                <td>{e.role}</td>
                <td>{signedPct(e.ratio)}</td>
                <td>{intervalText(e)}</td>
                <td>{e.verdict}</td>
                <td>{e.criterion}</td>
                <td>
                  <OutcomeBadge outcome={e.outcome} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

function ReportCatchUp({ catchUp }: { catchUp: Report["catchUp"] }) {
  return (
    <>
      <h2>Replication catch-up</h2>
      {catchUp.length === 0 ? (
        <p>No catch-up judgement is recorded yet.</p>
      ) : (
        <>
          <p className="subtle">
            Apply rate (transactions/s) over the samples where the replica or its control lagged by more than
            the threshold; judged only where one of them lagged during the bake.
          </p>
          <table className="data" data-testid="report-catch-up">
            <thead>
              <tr>
                <th scope="col">Wave</th>
                <th scope="col">Instance</th>
                <th scope="col">Role</th>
                <th scope="col">Lagging before → bake</th>
                <th scope="col">Control lagging before → bake</th>
                <th scope="col">Apply rate while lagging, before → bake (control)</th>
                <th scope="col">Change vs control</th>
                <th scope="col">95% interval</th>
                <th scope="col">Verdict</th>
                <th scope="col">Outcome</th>
              </tr>
            </thead>
            <tbody>
              {catchUp.map((c) => (
                <CatchUpRow key={`${c.wave}-${c.instance}`} c={c} />
              ))}
            </tbody>
          </table>
          <ul>
            {catchUp.map((c) => (
              <li key={`${c.wave}-${c.instance}-msg`}>
                {c.instance} (wave {c.wave}, lag &gt; {c.thresholdSeconds} s): {c.message}
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}

/** One changed replica's catch-up: its and its control's lag and apply rate, before → bake. */
function CatchUpRow({ c }: { c: CatchUp }) {
  const t = c.lag.find((l) => l.role === "treated");
  const ctl = c.lag.find((l) => l.role === "control");
  return (
    <tr>
      <td>{c.wave}</td>
      <td>{c.instance}</td>
      <td>{c.role}</td>
      <td>{t ? `${lagged(t.before)} → ${lagged(t.after)}` : "–"}</td>
      <td>{ctl ? `${lagged(ctl.before)} → ${lagged(ctl.after)}` : "–"}</td>
      <td>
        {t
          ? `${perSecond(t.before.applyRateWhileLagging)} → ${perSecond(t.after.applyRateWhileLagging)}`
          : "–"}{" "}
        (
        {ctl
          ? `${perSecond(ctl.before.applyRateWhileLagging)} → ${perSecond(ctl.after.applyRateWhileLagging)}`
          : "–"}
        )
      </td>
      <td>{signedPct(c.ratio)}</td>
      <td>{intervalText(c)}</td>
      <td>{c.verdict}</td>
      <td>{c.outcome}</td>
    </tr>
  );
}

function ReportTimeline({ timeline }: { timeline: Report["timeline"] }) {
  return (
    <>
      <h2>Timeline</h2>
      <table className="data">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Actor</th>
            <th scope="col">Event</th>
            <th scope="col">Message</th>
          </tr>
        </thead>
        <tbody>
          {timeline.map((e) => (
            <tr key={e.seq}>
              <td>{utc(e.at)}</td>
              <td>{actorText(e.actor)}</td>
              <td>{e.type}</td>
              <td>{e.message}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

/** The decision the report asks for, if any, and the instances not yet done. */
function ReportRemaining({ rep }: { rep: Report }) {
  const decision = decisionOf(rep);
  return (
    <>
      <h2>What remains</h2>
      {decision && <p data-testid="report-decision">{decision}</p>}
      {rep.remaining.length === 0 ? (
        decision ? null : (
          <p>Nothing.</p>
        )
      ) : (
        <ul>
          {rep.remaining.map((x) => (
            <li key={x.instance}>
              {x.instance} (wave {x.wave}): {x.status}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function ReportRevertPlan({ revertPlan }: { revertPlan: Report["revertPlan"] }) {
  return (
    <>
      <h2>Revert plan</h2>
      {revertPlan.length === 0 && <p>No instance is changed: nothing to revert.</p>}
      {revertPlan.map((x) => (
        <section key={x.instance}>
          <h3>
            {x.instance} (back to {x.previousValue ?? "its previous value"},{" "}
            {x.restart ? "restart" : "no restart"})
          </h3>
          <ol>
            {x.steps.map((st) => (
              <li key={st}>{st}</li>
            ))}
          </ol>
          {x.snippets.map((sn) => (
            <div key={sn.text} className="snippet">
              <div className="snippet-bar">
                <span>{LANG[sn.language] ?? sn.language}</span>
              </div>
              <pre>
                <code>{sn.text}</code>
              </pre>
            </div>
          ))}
        </section>
      ))}
    </>
  );
}
