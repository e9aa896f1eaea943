import { decisionOf, type Report } from "@untorn/rollout/report";
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { CheckTable } from "../../../../components/check-table.js";
import { OutcomeBadge, RolloutStatusBadge } from "../../../../components/rollout/badges.js";
import { RolloutStoreProblem } from "../../../../components/rollout/store-problem.js";
import { num, pctRange, utc } from "../../../../lib/format.js";
import { actorText, intervalText, signedPct } from "../../../../lib/rollout-view.js";
import { requirePage } from "../../../../server/access.js";
import { getSourceInfo } from "../../../../server/data.js";
import {
  getRolloutView,
  type RolloutLookup,
  RolloutStoreError,
  reportOf,
  rolloutIdSchema,
} from "../../../../server/rollouts.js";

type Lag = Report["catchUp"][number]["lag"][number]["before"];
const lagged = (l: Lag) =>
  l.samples === 0 ? "no data" : `${Math.round(l.laggingSeconds)} s (max ${l.maxSeconds ?? "–"} s)`;
const perSecond = (x: number | null) => (x === null ? "–" : num(x));

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Change report" };

type Params = Promise<{ id: string }>;

const LANG: Record<string, string> = { ini: "my.cnf", sql: "SQL", shell: "shell" };

/** The change report (@untorn/rollout's buildReport) as a printable page, with its Markdown and JSON. */
export default async function ReportPage({ params }: { params: Params }) {
  const { id: raw } = await params;
  await requirePage("/rollouts/[id]/report", `/rollouts/${encodeURIComponent(raw)}/report`);
  const id = rolloutIdSchema.safeParse(raw);
  if (!id.success) notFound();
  let r: RolloutLookup;
  try {
    r = await getRolloutView(id.data);
  } catch (err) {
    if (err instanceof RolloutStoreError) return <RolloutStoreProblem error={err.message} />;
    throw err;
  }
  if (r.kind === "not-found") notFound();
  if (r.kind === "invalid")
    return (
      <div className="banner banner-bad" role="alert">
        <strong>This rollout's report cannot be built.</strong> {r.problem}
      </div>
    );
  const rep = reportOf(r.rollout.state);
  const api = `/api/v1/rollouts/${rep.id}/report`;
  const source = getSourceInfo();
  return (
    <article className="report" data-testid="change-report">
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

      <h2>Hypothesis</h2>
      <p>{rep.hypothesis.summary}</p>
      <ul>
        {rep.hypothesis.findings.map((f) => (
          <li key={`${f.instance}-${f.ruleId}`}>
            {f.instance}: <strong>{f.title}</strong> ({f.ruleId}). {f.summary}
          </li>
        ))}
      </ul>

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
          {rep.plan.waves.map((w) => (
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
          {rep.plan.dryRun.map((d) => (
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
                {d.expectedGain
                  ? pctRange(d.expectedGain.throughput.low, d.expectedGain.throughput.high)
                  : "–"}
              </td>
              <td>{d.excluded ?? "–"}</td>
            </tr>
          ))}
        </tbody>
      </table>

      <h2>Gates</h2>
      {rep.gates.length === 0 ? (
        <p>No gate decided yet.</p>
      ) : (
        <CheckTable
          label="Gate decisions"
          columns={["Time", "Gate", "Wave", "Instance", "Outcome", "Summary"]}
          headAt={-1}
          rows={rep.gates.map((g) => ({
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

      <h2>Effect per wave and metric</h2>
      {rep.effects.length === 0 ? (
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
            {rep.effects.map((e) => (
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

      <h2>Replication catch-up</h2>
      {rep.catchUp.length === 0 ? (
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
              {rep.catchUp.map((c) => {
                const t = c.lag.find((l) => l.role === "treated");
                const ctl = c.lag.find((l) => l.role === "control");
                return (
                  <tr key={`${c.wave}-${c.instance}`}>
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
              })}
            </tbody>
          </table>
          <ul>
            {rep.catchUp.map((c) => (
              <li key={`${c.wave}-${c.instance}-msg`}>
                {c.instance} (wave {c.wave}, lag &gt; {c.thresholdSeconds} s): {c.message}
              </li>
            ))}
          </ul>
        </>
      )}

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
          {rep.timeline.map((e) => (
            <tr key={e.seq}>
              <td>{utc(e.at)}</td>
              <td>{actorText(e.actor)}</td>
              <td>{e.type}</td>
              <td>{e.message}</td>
            </tr>
          ))}
        </tbody>
      </table>

      <h2>What remains</h2>
      {decisionOf(rep) && <p data-testid="report-decision">{decisionOf(rep)}</p>}
      {rep.remaining.length === 0 ? (
        decisionOf(rep) ? null : (
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

      <h2>Revert plan</h2>
      {rep.revertPlan.length === 0 && <p>No instance is changed: nothing to revert.</p>}
      {rep.revertPlan.map((x) => (
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
    </article>
  );
}
