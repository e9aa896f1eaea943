/** The top of a rollout's page: its title and status line, then the banners about its data and its state. */
import { demoOnlyInstances } from "@untorn/rollout/report";
import type { RolloutState } from "@untorn/rollout/state";
import Link from "next/link";
import { utc } from "../../lib/format.js";
import { GATE_TEXT, isActiveStatus, lastGateOf, OUTCOME_TEXT, progressOf } from "../../lib/rollout-view.js";
import type { ReadingInfo, SourceInfo } from "../../server/fleet/data.js";
import type { PassNote } from "../../server/rollouts/reconciler.js";
import type { RolloutClock } from "../../server/rollouts/rollout-deps.js";
import { changeText } from "../../server/rollouts/rollouts.js";
import { RolloutStatusBadge } from "./badges.js";
import { DemoOnlyBanner } from "./report-sections.js";
import { SavedAt } from "./saved-at.js";

/** A replay's "not in the recording" errors (their text carries PromQL, never shown on recorded data). */
const RECORDING_MISS = /replay file|outside the recording|recorded at step/;

type Source = SourceInfo | ReadingInfo;

export function RolloutHead({
  state: s,
  version,
  storedAt,
}: {
  state: RolloutState;
  version: number;
  storedAt: Date;
}) {
  const progress = progressOf(s);
  const lastGate = lastGateOf(s.events);
  return (
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
        <DemoOnlyBanner instances={demoOnlyInstances(s)} />
        <p className="subtle">
          Started by {s.createdBy.id} on {utc(s.createdAt)}
          <SavedAt createdAt={s.createdAt} storedAt={storedAt} /> · version {version} · id <code>{s.id}</code>
        </p>
      </div>
      <div>
        <Link className="button" href={`/rollouts/${s.id}/report`}>
          Change report
        </Link>
      </div>
    </div>
  );
}

/** On a recording: where the data comes from, and (for a rollout made here) what it cannot show. */
export function RecordedNote({
  source,
  clock,
  createdAt,
}: {
  source: Source;
  clock: RolloutClock;
  createdAt: number;
}) {
  if (source.kind !== "recorded") return null;
  return (
    <div className="banner banner-info" role="status" data-testid="recorded-note">
      <p>
        <strong>Recorded data.</strong> Charts, gates and read-backs on this console come from a recording
        made {utc(source.recordedAt)}, not from a live Prometheus; the rollout itself is read from the store.
        Time stands at the recording's end
        {clock.frozenAt !== null ? ` (${utc(clock.frozenAt)})` : ""}: gates read the servers as they were
        then.
      </p>
      {/* A rollout the recording ran began before its end; one made on this console, at it. */}
      {clock.frozenAt !== null && createdAt >= clock.frozenAt && (
        <p data-testid="recorded-limit">
          A step you mark done here happens after the recording, so no read-back can show it and no bake can
          judge it: to carry a rollout through verification and a verdict, run the live demo stack (
          <Link href="/docs/demo">the compose demo</Link>).
        </p>
      )}
    </div>
  );
}

/** The reconciler's last pass over this rollout, when it failed. */
export function ReconcilerProblem({ pass, source }: { pass: PassNote | null; source: Source }) {
  if (!pass?.error) return null;
  return (
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
  );
}

export function PauseBanner({ pause }: { pause: RolloutState["pause"] }) {
  if (!pause) return null;
  return (
    <div className="banner banner-warn" role="status">
      <strong>
        Paused ({pause.reason}) since {utc(pause.at)}.
      </strong>{" "}
      {pause.message}
    </div>
  );
}
