/** A rollout page's sections on what comes next, why the change is made, and each wave with its gates. */
import { groupExclusions, hypothesisSummary } from "@untorn/rollout/plan";
import type { NextActions, RolloutState } from "@untorn/rollout/state";
import Link from "next/link";
import { utc } from "../../lib/format.js";
import { instanceHref } from "../../lib/paths.js";
import { EXCLUSION_TEXT, OUTCOME_TEXT } from "../../lib/rollout-view.js";
import { OutcomeBadge } from "./badges.js";
import { ComparisonTable, OutcomeLegend } from "./comparison.js";
import { GateDetails } from "./gate-details.js";

const WAVE_KIND = {
  canary: "Canary",
  replicas: "Replicas",
  controls: "Control replicas (before/after)",
  primaries: "Primaries (by switchover)",
} as const;

type Wave = RolloutState["waves"][number];
type GateResult = NonNullable<RolloutState["events"][number]["gate"]>;
type Gated = { readonly seq: number; readonly gate: GateResult };

/** What a person should do now and when the reconciler wakes; nothing when neither applies. */
export function NextSection({ next, now }: { next: NextActions; now: number }) {
  if (!(next.human.length > 0 || next.wakeAt !== null)) return null;
  return (
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
  );
}

export function HypothesisSection({ plan }: { plan: RolloutState["plan"] }) {
  return (
    <section className="section" aria-labelledby="hypothesis-title">
      <h2 id="hypothesis-title">Change and hypothesis</h2>
      <p>{hypothesisSummary(plan.change, plan.dryRun)}</p>
      {plan.hypothesis.findings.length > 0 && (
        <ul>
          {plan.hypothesis.findings.map((f) => (
            <li key={`${f.instance}-${f.ruleId}`}>
              <Link href={instanceHref(f.instance)}>{f.instance}</Link>: <strong>{f.title}</strong> (
              <code>{f.ruleId}</code>). {f.summary}
            </li>
          ))}
        </ul>
      )}
      {plan.exclusions.length > 0 && (
        <details>
          <summary>{plan.exclusions.length} instance(s) excluded from the plan</summary>
          <ul>
            {groupExclusions(plan.exclusions).map(({ instances, x }) => (
              <li key={x.instance} data-reason={x.reason} data-count={instances.length}>
                {instances.join(", ")}: <strong>{EXCLUSION_TEXT[x.reason]}</strong>. {x.detail}
                {x.toVerify.length > 0 && ` To verify: ${x.toVerify.join("; ")}.`}
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}

export function WavesSection({ state: s }: { state: RolloutState }) {
  const gated = s.events.flatMap((e) => (e.gate ? [{ seq: e.seq, gate: e.gate }] : []));
  return (
    <section className="section" aria-labelledby="waves-title">
      <h2 id="waves-title">Waves and gates</h2>
      {s.waves.length === 0 && <p className="empty">No instance was eligible: the plan has no wave.</p>}
      {s.waves.map((w) => (
        <WaveCard
          key={w.index}
          wave={w}
          gated={gated.filter((e) => e.gate.wave === w.index)}
          policy={s.policy}
        />
      ))}
      <OutcomeLegend />
      <p className="subtle">
        "{OUTCOME_TEXT.inconclusive}" is not a pass: the data could not tell the effect from noise, and the
        rollout waits for a person.
      </p>
    </section>
  );
}

/** One wave: what it changes, when, its gate decisions and its last bake's comparison. */
function WaveCard({
  wave: w,
  gated: wg,
  policy,
}: {
  wave: Wave;
  /** The wave's gate decisions, in event order. */
  gated: readonly Gated[];
  policy: RolloutState["policy"];
}) {
  const lastBake = wg.findLast((e) => e.gate.gate === "bake")?.gate;
  const bakeMinutes = policy.bakeSeconds / 60;
  const warmupMinutes = policy.warmupSeconds / 60;
  return (
    <article className="card wave" data-wave={w.index} data-phase={w.phase}>
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
        {w.approvedAt ? `Approved ${utc(w.approvedAt)} by ${w.approvedBy?.id ?? "–"}` : "Not approved yet"}
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
          Not judged yet: the wave is {w.phase}. The comparison runs after the bake ({bakeMinutes} min,
          warm-up of {warmupMinutes} min excluded after a restart).
        </p>
      )}
    </article>
  );
}
