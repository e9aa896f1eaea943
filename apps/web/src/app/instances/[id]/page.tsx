import type { Metadata } from "next";
import Link from "next/link";
import { Suspense } from "react";
import { ChartsSection } from "../../../components/charts-section.js";
import { FactsSection } from "../../../components/facts-section.js";
import { GateSection } from "../../../components/gate-section.js";
import { FindingsSection } from "../../../components/instance/findings-section.js";
import { InstanceHead, InstanceMissing } from "../../../components/instance/instance-head.js";
import { MetadataSection } from "../../../components/instance/metadata-section.js";
import { ProfileSection } from "../../../components/profile-section.js";
import { ChartsSkeleton } from "../../../components/skeletons.js";
import { StatusBanner } from "../../../components/status-banner.js";
import { VerdictSection } from "../../../components/verdict-section.js";
import { env } from "../../../env.js";
import { parseInstanceId } from "../../../lib/instance-id.js";
import { grafanaInstanceHref } from "../../../lib/paths.js";
import { ACTIONS, allows } from "../../../lib/permissions.js";
import { parseRangeParam } from "../../../lib/ranges.js";
import { saveInstanceMetadata } from "../../../server/actions.js";
import { requirePage } from "../../../server/auth/access.js";
import type { InstanceView } from "../../../server/fleet/instance.js";
import { instanceLookup } from "../../../server/fleet/views.js";

export const dynamic = "force-dynamic";

type Params = Promise<{ id: string }>;
type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const id = parseInstanceId((await params).id);
  return { title: id.ok ? id.id : "Bad instance" };
}

/** The instance's Grafana dashboard (on a recording, its last hour), when GRAFANA_URL is set. */
function grafanaHref(instance: string, v: InstanceView): string | null {
  const e = env();
  return e.GRAFANA_URL
    ? grafanaInstanceHref(
        e.GRAFANA_URL,
        instance,
        v.source.kind === "recorded" ? v.at - 3600 : undefined,
        v.source.kind === "recorded" ? v.at : undefined,
      )
    : null;
}

export default async function InstancePage({
  params,
  searchParams,
}: {
  params: Params;
  searchParams: SearchParams;
}) {
  const segment = (await params).id;
  const who = await requirePage("/instances/[id]", `/instances/${encodeURIComponent(segment)}`);
  const id = parseInstanceId(segment);
  if (!id.ok)
    return (
      <div className="banner banner-bad" role="alert">
        <strong>Bad instance in the URL.</strong>
        The instance {id.message}. <Link href="/">Back to the fleet</Link>
      </div>
    );
  const instance = id.id;
  const parsedRange = parseRangeParam((await searchParams).range, true);
  const range = parsedRange.ok ? parsedRange.range : null;

  // The profile covers the range too (`all`, the charts' whole recording, is the source's window).
  const lookup = await instanceLookup(instance, range === "all" ? null : range);
  if (lookup.kind !== "found") return <InstanceMissing instance={instance} lookup={lookup} />;

  const v = lookup.view;
  const a = v.advice;
  return (
    <>
      <InstanceHead instance={instance} view={v} grafana={grafanaHref(instance, v)} />
      {!parsedRange.ok && (
        <div className="banner banner-warn" role="alert" data-testid="param-problems">
          <strong>Some URL parameters were ignored:</strong>
          <code>range={parsedRange.value}</code>: {parsedRange.message}. Showing the default range.
        </div>
      )}
      <StatusBanner source={v.source} status={v.status} storeProblem={v.storeProblem} />

      <VerdictSection verdict={a.verdict} />

      <FindingsSection
        instance={instance}
        findings={a.findings}
        gain={v.row.gain}
        canPlan={allows(who.role, ACTIONS.createRollout)}
      />

      <section className="section" aria-labelledby="charts-title">
        <h2 id="charts-title">Write path over time</h2>
        <Suspense key={range ?? "default"} fallback={<ChartsSkeleton />}>
          <ChartsSection instance={instance} range={range} />
        </Suspense>
      </section>

      <GateSection gate={a.safetyGate} />
      <ProfileSection profile={a.profile} />
      <FactsSection
        facts={v.facts}
        missing={v.missing}
        declared={v.declared}
        conflicts={v.conflicts}
        exporters={v.exporters}
      />

      <MetadataSection
        instance={instance}
        view={v}
        canEdit={allows(who.role, ACTIONS.saveInstanceMetadata)}
        action={saveInstanceMetadata}
      />
    </>
  );
}
