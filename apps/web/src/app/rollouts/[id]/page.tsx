import { hypothesisSummary } from "@untorn/rollout/plan";
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { Suspense } from "react";
import { RolloutControls } from "@/components/rollout/controls";
import { OutcomeBadge, RolloutStatusBadge } from "../../../components/rollout/badges.js";
import { RolloutChartsSection } from "../../../components/rollout/charts-section.js";
import { ComparisonTable, OutcomeLegend } from "../../../components/rollout/comparison.js";
import { GateDetails } from "../../../components/rollout/gate-details.js";
import { CurrentWaveSteps, RevertSteps } from "../../../components/rollout/steps.js";
import { RolloutStoreProblem } from "../../../components/rollout/store-problem.js";
import { Timeline } from "../../../components/rollout/timeline.js";
import { ChartsSkeleton } from "../../../components/skeletons.js";
import { utc } from "../../../lib/format.js";
import { instanceHref } from "../../../lib/paths.js";
import { allows } from "../../../lib/permissions.js";
import {
  GATE_TEXT,
  isActiveStatus,
  lastGateOf,
  OUTCOME_TEXT,
  progressOf,
} from "../../../lib/rollout-view.js";
import { requirePage } from "../../../server/access.js";
import { getSourceInfo } from "../../../server/data.js";
import { lastPassOf } from "../../../server/reconciler.js";
import { rolloutClock } from "../../../server/rollout-deps.js";
import {
  changeText,
  getRolloutView,
  nextOf,
  type RolloutLookup,
  RolloutStoreError,
  rolloutIdSchema,
} from "../../../server/rollouts.js";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Rollout" };

type Params = Promise<{ id: string }>;

/** A replay's "not in the recording" errors (their text carries PromQL, never shown on recorded data). */
const RECORDING_MISS = /replay file|outside the recording|recorded at step/;

const WAVE_KIND = {
  canary: "Canary",
  replicas: "Replicas",
  controls: "Control replicas (before/after)",
  primaries: "Primaries (by switchover)",
} as const;

export default async function RolloutPage({ params }: { params: Params }) {
  const { id: raw } = await params;
  const who = await requirePage("/rollouts/[id]", `/rollouts/${encodeURIComponent(raw)}`);
  const id = rolloutIdSchema.safeParse(raw);
  if (!id.success) notFound();
  let r: RolloutLookup;
  try {
    r = await getRolloutView(id.data);
  } catch (err) {
    if (err instanceof RolloutStoreError)
      return (
        <>
          <h1>Rollout {id.data}</h1>
          <RolloutStoreProblem error={err.message} />
        </>
      );
    throw err;
  }
  if (r.kind === "not-found") notFound();
  if (r.kind === "invalid")
    return (
      <>
        <h1>{r.row.name}</h1>
        <div className="banner banner-bad" role="alert">
          <strong>This rollout cannot be shown.</strong> {r.problem}
        </div>
      </>
    );
  const { state: s, version } = r.rollout;
  const canOperate = allows(who.role, "operator");
  // "Now" on the data source's clock: on a recording its last evaluation time, where time stands still.
  const clock = await rolloutClock();
  const now = clock.now();
  const next = nextOf(s, now);
  const progress = progressOf(s);
  const gated = s.events.flatMap((e) => (e.gate ? [{ seq: e.seq, gate: e.gate }] : []));
  const lastGate = lastGateOf(s.events);
  const source = getSourceInfo();
  const pass = isActiveStatus(s.status) ? lastPassOf(s.id) : null;
  return (
    <>
      <div className="page-head">
        <div>
          <p className="subtle">
            <Link href="/rollouts">Rollouts</Link> /
          </p>
          <h1>{s.title}</h1>
          <p>
            <span data-testid="rollout-status" data-status={s.status}>
              <RolloutStatusBadge status={s.status} />
            </span>{" "}
            {changeText(s)} · {progress.text}
            {s.currentWave !== null && isActiveStatus(s.status) ? ` · at wave ${s.currentWave}` : ""}
          </p>
          {lastGate && (
            <p data-testid="last-gate">
              Last gate: {GATE_TEXT[lastGate.gate]}, wave {lastGate.wave}
              {lastGate.instance ? ` (${lastGate.instance})` : ""}: {OUTCOME_TEXT[lastGate.outcome]} ·{" "}
              {lastGate.summary} <span className="subtle">({utc(lastGate.at)})</span>
            </p>
          )}
          <p className="subtle">
            Started by {s.createdBy.id} on {utc(s.createdAt)} · version {version} · id <code>{s.id}</code>
          </p>
        </div>
        <div>
          <Link className="button" href={`/rollouts/${s.id}/report`}>
            Change report
          </Link>
        </div>
      </div>
      {source.kind === "recorded" && (
        <div className="banner banner-info" role="status" data-testid="recorded-note">
          <p>
            <strong>Recorded data.</strong> Charts, gates and read-backs on this console come from a recording
            made {utc(source.recordedAt)}, not from a live Prometheus; the rollout itself is read from the
            store. Time stands at the recording's end
            {clock.frozenAt !== null ? ` (${utc(clock.frozenAt)})` : ""}: gates read the servers as they were
            then.
          </p>
          {/* A rollout the recording ran began before its end; one made on this console, at it. */}
          {clock.frozenAt !== null && s.createdAt >= clock.frozenAt && (
            <p data-testid="recorded-limit">
              A step you mark done here happens after the recording, so no read-back can show it and no bake
              can judge it: to carry a rollout through verification and a verdict, run the live demo stack (
              <Link href="/docs/demo">the compose demo</Link>).
            </p>
          )}
        </div>
      )}
      {pass?.error && (
        <div className="banner banner-warn" role="status" data-testid="reconciler-problem">
          <p>
            <strong>The reconciler could not move this rollout on its last pass ({utc(pass.at)}).</strong> Its
            gates wait: nothing was recorded, and it tries again on its next pass.
            {source.kind === "recorded"
              ? " On recorded data it can read only what the recording holds; what a gate asks beyond that is answered by a live Prometheus."
              : ""}
          </p>
          <p>
            {source.kind === "recorded" && RECORDING_MISS.test(pass.error) ? (
              "The recording does not hold what this gate reads; run the compose demo for a live Prometheus."
            ) : (
              <code>{pass.error}</code>
            )}
          </p>
        </div>
      )}
      {s.pause && (
        <div className="banner banner-warn" role="status">
          <strong>
            Paused ({s.pause.reason}) since {utc(s.pause.at)}.
          </strong>{" "}
          {s.pause.message}
        </div>
      )}
      <RolloutControls
        id={s.id}
        version={version}
        status={s.status}
        canOperate={canOperate}
        now={now}
        frozenAt={clock.frozenAt}
      />
      {(next.human.length > 0 || next.wakeAt !== null) && (
        <section className="section" aria-labelledby="next-title">
          <h2 id="next-title">What happens next</h2>
          {next.human.length > 0 ? (
            <ul data-testid="rollout-next">
              {next.human.map((h) => (
                <li key={`${h.kind}-${h.wave ?? ""}-${h.instance ?? ""}`}>{h.message}</li>
              ))}
            </ul>
          ) : (
            <p>Nothing for a person to do now.</p>
          )}
          {next.wakeAt !== null && (
            <p className="subtle" data-testid="rollout-wake">
              The reconciler moves the rollout by itself at {utc(next.wakeAt)}
              {next.wakeAt < now
                ? " (overdue: no reconciler has run since; `untorn rollout reconcile` runs one pass)"
                : ""}
              .
            </p>
          )}
        </section>
      )}

      <section className="section" aria-labelledby="hypothesis-title">
        <h2 id="hypothesis-title">Change and hypothesis</h2>
        <p>{hypothesisSummary(s.plan.change, s.plan.dryRun)}</p>
        {s.plan.hypothesis.findings.length > 0 && (
          <ul>
            {s.plan.hypothesis.findings.map((f) => (
              <li key={`${f.instance}-${f.ruleId}`}>
                <Link href={instanceHref(f.instance)}>{f.instance}</Link>: <strong>{f.title}</strong> (
                <code>{f.ruleId}</code>). {f.summary}
              </li>
            ))}
          </ul>
        )}
        {s.plan.exclusions.length > 0 && (
          <details>
            <summary>{s.plan.exclusions.length} instance(s) excluded from the plan</summary>
            <ul>
              {s.plan.exclusions.map((e) => (
                <li key={e.instance}>
                  {e.instance}: <strong>{e.reason}</strong>. {e.detail}
                </li>
              ))}
            </ul>
          </details>
        )}
      </section>

      {s.currentWave !== null && isActiveStatus(s.status) && (
        <section className="section" aria-labelledby="steps-title">
          <h2 id="steps-title">Wave {s.currentWave}: the steps per instance</h2>
          <CurrentWaveSteps state={s} version={version} canOperate={canOperate} now={now} />
        </section>
      )}

      {s.status === "reverting" && (
        <section className="section" aria-labelledby="revert-steps-title">
          <h2 id="revert-steps-title">The revert: steps per instance</h2>
          <RevertSteps state={s} version={version} canOperate={canOperate} now={now} />
        </section>
      )}

      <section className="section" aria-labelledby="waves-title">
        <h2 id="waves-title">Waves and gates</h2>
        {s.waves.length === 0 && <p className="empty">No instance was eligible: the plan has no wave.</p>}
        {s.waves.map((w) => {
          const wg = gated.filter((e) => e.gate.wave === w.index);
          const lastBake = wg.findLast((e) => e.gate.gate === "bake")?.gate;
          return (
            <article key={w.index} className="card wave" data-wave={w.index} data-phase={w.phase}>
              <h3>
                Wave {w.index}: {WAVE_KIND[w.kind]} <span className="badge badge-outline">{w.phase}</span>
              </h3>
              <p>
                Changes {w.instances.join(", ")}
                {w.controls.length > 0
                  ? `; control (left untouched): ${w.controls.join(", ")}`
                  : "; no concurrent control (judged before/after)"}
                .
              </p>
              <p className="subtle">
                {w.approvedAt
                  ? `Approved ${utc(w.approvedAt)} by ${w.approvedBy?.id ?? "–"}`
                  : "Not approved yet"}
                {w.startedAt ? ` · started ${utc(w.startedAt)}` : ""}
                {w.bakeStart && w.bakeEnd ? ` · bake ${utc(w.bakeStart)} – ${utc(w.bakeEnd)}` : ""}
                {w.evaluations > 0 ? ` · ${w.evaluations} evaluation(s)` : ""}
              </p>
              {wg.length === 0 ? (
                <p className="subtle">No gate decided yet.</p>
              ) : (
                wg.map((e) => <GateDetails key={e.seq} gate={e.gate} />)
              )}
              <h4>Comparison {w.controls.length > 0 ? "vs control" : "vs before the change"}</h4>
              {lastBake ? (
                <>
                  <p>
                    Last judgement: <OutcomeBadge outcome={lastBake.outcome} /> {lastBake.summary}
                  </p>
                  <ComparisonTable gate={lastBake} hasControls={w.controls.length > 0} />
                </>
              ) : (
                <p className="subtle">
                  Not judged yet: the wave is {w.phase}. The comparison runs after the bake (
                  {s.policy.bakeSeconds / 60} min, warm-up of {s.policy.warmupSeconds / 60} min excluded after
                  a restart).
                </p>
              )}
            </article>
          );
        })}
        <OutcomeLegend />
        <p className="subtle">
          "{OUTCOME_TEXT.inconclusive}" is not a pass: the data could not tell the effect from noise, and the
          rollout waits for a person.
        </p>
      </section>

      <section className="section" aria-labelledby="charts-title">
        <h2 id="charts-title">Canary vs control</h2>
        <Suspense fallback={<ChartsSkeleton />}>
          <RolloutChartsSection state={s} />
        </Suspense>
      </section>

      <section className="section" aria-labelledby="timeline-title">
        <h2 id="timeline-title">Audit timeline</h2>
        <Timeline events={s.events} />
      </section>
    </>
  );
}
