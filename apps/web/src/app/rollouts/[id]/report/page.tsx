import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { ChangeReport } from "../../../../components/rollout/report-sections.js";
import { RolloutStoreProblem } from "../../../../components/rollout/store-problem.js";
import { requirePage } from "../../../../server/auth/access.js";
import { getSourceInfo } from "../../../../server/fleet/data.js";
import {
  getRolloutView,
  type RolloutLookup,
  RolloutStoreError,
  reportOf,
  rolloutIdSchema,
} from "../../../../server/rollouts/rollouts.js";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Change report" };

type Params = Promise<{ id: string }>;

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
  return <ChangeReport rep={reportOf(r.rollout.state)} source={getSourceInfo()} />;
}
