import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { Suspense } from "react";
import { RolloutControls } from "@/components/rollout/controls";
import { RolloutChartsSection } from "../../../components/rollout/charts-section.js";
import {
  PauseBanner,
  ReconcilerProblem,
  RecordedNote,
  RolloutHead,
} from "../../../components/rollout/rollout-head.js";
import {
  HypothesisSection,
  NextSection,
  WavesSection,
} from "../../../components/rollout/rollout-sections.js";
import { CurrentWaveSteps, RevertSteps } from "../../../components/rollout/steps.js";
import { RolloutStoreProblem } from "../../../components/rollout/store-problem.js";
import { Timeline } from "../../../components/rollout/timeline.js";
import { ChartsSkeleton } from "../../../components/skeletons.js";
import { allows } from "../../../lib/permissions.js";
import { isActiveStatus } from "../../../lib/rollout-view.js";
import { requirePage } from "../../../server/auth/access.js";
import { getSourceInfo } from "../../../server/fleet/data.js";
import { lastPassOf } from "../../../server/rollouts/reconciler.js";
import { rolloutClock } from "../../../server/rollouts/rollout-deps.js";
import {
  getRolloutView,
  nextOf,
  type RolloutLookup,
  RolloutStoreError,
  rolloutIdSchema,
} from "../../../server/rollouts/rollouts.js";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Rollout" };

type Params = Promise<{ id: string }>;

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
  const { state: s, version, storedAt } = r.rollout;
  const canOperate = allows(who.role, "operator");
  // "Now" on the data source's clock: on a recording its last evaluation time, where time stands still.
  const clock = await rolloutClock();
  const now = clock.now();
  const next = nextOf(s, now);
  const source = getSourceInfo();
  const pass = isActiveStatus(s.status) ? lastPassOf(s.id) : null;
  const steps = { state: s, version, canOperate, now };
  return (
    <>
      <RolloutHead state={s} version={version} storedAt={storedAt} />
      <RecordedNote source={source} clock={clock} createdAt={s.createdAt} />
      <ReconcilerProblem pass={pass} source={source} />
      <PauseBanner pause={s.pause} />
      <RolloutControls
        id={s.id}
        version={version}
        status={s.status}
        canOperate={canOperate}
        now={now}
        frozenAt={clock.frozenAt}
      />
      <NextSection next={next} now={now} />

      <HypothesisSection plan={s.plan} />

      {s.currentWave !== null && isActiveStatus(s.status) && (
        <section className="section" aria-labelledby="steps-title">
          <h2 id="steps-title">Wave {s.currentWave}: the steps per instance</h2>
          <CurrentWaveSteps {...steps} />
        </section>
      )}

      {s.status === "reverting" && (
        <section className="section" aria-labelledby="revert-steps-title">
          <h2 id="revert-steps-title">The revert: steps per instance</h2>
          <RevertSteps {...steps} />
        </section>
      )}

      <WavesSection state={s} />

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
