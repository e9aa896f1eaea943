import type { DeclaredMetadata } from "@untorn/fleet/metadata";
import type { InstanceMetadata } from "@untorn/store/store";
import type { Metadata } from "next";
import Link from "next/link";
import { Suspense } from "react";
import { GateBadge, VerdictBadge } from "../../../components/badges.js";
import { ChartsSection } from "../../../components/charts-section.js";
import { FactsSection } from "../../../components/facts-section.js";
import { FindingCard } from "../../../components/finding-card.js";
import { GateSection } from "../../../components/gate-section.js";
import { MetadataForm, type MetadataValues } from "../../../components/metadata-form.js";
import { ProfileSection } from "../../../components/profile-section.js";
import { ChartsSkeleton } from "../../../components/skeletons.js";
import { StatusBanner } from "../../../components/status-banner.js";
import { VerdictSection } from "../../../components/verdict-section.js";
import { env } from "../../../env.js";
import { serverLabel, utc } from "../../../lib/format.js";
import { gainText } from "../../../lib/gain.js";
import { parseInstanceId } from "../../../lib/instance-id.js";
import { grafanaInstanceHref } from "../../../lib/paths.js";
import { ACTIONS, allows } from "../../../lib/permissions.js";
import { parseRangeParam } from "../../../lib/ranges.js";
import { changeFieldsOf, planHref } from "../../../lib/rollout-link.js";
import { requirePage } from "../../../server/access.js";
import { saveInstanceMetadata } from "../../../server/actions.js";
import type { InstanceView } from "../../../server/data.js";
import { instanceLookup } from "../../../server/views.js";

export const dynamic = "force-dynamic";

type Params = Promise<{ id: string }>;
type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const id = parseInstanceId((await params).id);
  return { title: id.ok ? id.id : "Bad instance" };
}

/**
 * The form's values: what is stored, else (for cluster, role and storage class) what the declared
 * metadata file says, since that is what the advisor used; the form says which file it came from.
 */
function formValues(m: InstanceMetadata | null, declared: DeclaredMetadata | null): MetadataValues {
  const f = m?.storageFacts ?? {};
  const mib = f.limits?.bandwidthBytesPerSecond;
  return {
    cluster: m?.cluster ?? declared?.cluster ?? "",
    role: m?.role ?? declared?.role ?? "",
    notes: m?.notes ?? "",
    storageClass: m?.storageClass ?? declared?.storageClass ?? "",
    managedService: m?.managedService ?? "",
    cloud: f.cloud ?? "",
    instanceClass: f.instanceClass ?? "",
    rdsOptimizedWrites: f.rdsOptimizedWrites ?? "",
    tornWriteProvider: f.tornWriteProtection?.provider ?? "",
    tornWriteUnitBytes: f.tornWriteProtection ? String(f.tornWriteProtection.unitBytes) : "",
    tornWriteNote: f.tornWriteProtection?.note ?? "",
    fsType: f.fsType ?? "",
    zfsRecordsizeBytes: f.zfsRecordsizeBytes ? String(f.zfsRecordsizeBytes) : "",
    limitsMetered: f.limits?.metered === undefined ? "" : String(f.limits.metered),
    limitsIops: f.limits?.iops ? String(f.limits.iops) : "",
    limitsBandwidthMiBps: mib ? String(Math.round((mib / 1048576) * 100) / 100) : "",
    limitsIoUnitBytes: f.limits?.ioUnitBytes ? String(f.limits.ioUnitBytes) : "",
  };
}

/** Which identity fields come from the declared file rather than the store, and the file's name. */
function declaredNote(m: InstanceMetadata | null, d: InstanceView["declaredMetadata"]): string | null {
  if (!d) return null;
  const fields = (["cluster", "role", "storageClass"] as const).filter((k) => !m?.[k] && d.entry[k]);
  if (fields.length === 0) return null;
  const names = fields.map((k) => (k === "storageClass" ? "storage class" : k));
  return `${names.join(", ")} as declared in ${d.file.split("/").pop()} (saving here stores them)`;
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
  if (lookup.kind !== "found") {
    return (
      <>
        <h1>{instance}</h1>
        <StatusBanner source={lookup.source} status={lookup.status} />
        {lookup.kind === "not-found" && (
          <div className="empty" role="alert">
            <h2>No instance “{instance}” in the fleet</h2>
            <p>
              The {lookup.source.kind === "recorded" ? "recording" : "fleet"} has no series with{" "}
              <code>instance="{instance}"</code>. Check the spelling, or go{" "}
              <Link href="/">back to the fleet</Link> and search for it.
            </p>
          </div>
        )}
        {lookup.kind === "skipped" && (
          <div className="empty" role="alert">
            <h2>No usable facts for this instance</h2>
            <p>Its series exist, but {lookup.reason}.</p>
            <p>
              <Link href="/">Back to the fleet</Link>
            </p>
          </div>
        )}
      </>
    );
  }

  const v = lookup.view;
  const e = env();
  const a = v.advice;
  const grafana = e.GRAFANA_URL
    ? grafanaInstanceHref(
        e.GRAFANA_URL,
        instance,
        v.source.kind === "recorded" ? v.at - 3600 : undefined,
        v.source.kind === "recorded" ? v.at : undefined,
      )
    : null;
  const m = v.metadata;
  return (
    <>
      <div className="page-head">
        <div>
          <p className="subtle" style={{ margin: 0 }}>
            <Link href="/">Fleet</Link> / instance
          </p>
          <h1>{instance}</h1>
          <p className="subtle" style={{ margin: 0 }}>
            {serverLabel(a.server.flavor, v.facts.server.version)}
            {v.facts.identity.cluster ? ` · cluster ${v.facts.identity.cluster}` : ""}
            {v.facts.identity.role ? ` · ${v.facts.identity.role}` : ""} · window {v.window} ending{" "}
            {utc(v.at)}
            {v.source.kind === "recorded" ? " · recorded data" : ""}
          </p>
        </div>
        <div style={{ display: "flex", gap: "0.5rem", flexWrap: "wrap", alignItems: "center" }}>
          <VerdictBadge verdict={a.verdict.verdict} confidence={a.verdict.confidence} />
          <GateBadge status={a.safetyGate.status} />
          {grafana ? (
            <a className="button" href={grafana} rel="noopener">
              Open in Grafana
            </a>
          ) : (
            <span
              className="subtle"
              title="Set GRAFANA_URL to link the Grafana instance dashboard (uid untorn-instance)"
            >
              Grafana link: set GRAFANA_URL
            </span>
          )}
          <a className="button" href={`/api/v1/instances/${encodeURIComponent(instance)}`}>
            JSON
          </a>
        </div>
      </div>
      {!parsedRange.ok && (
        <div className="banner banner-warn" role="alert" data-testid="param-problems">
          <strong>Some URL parameters were ignored:</strong>
          <code>range={parsedRange.value}</code>: {parsedRange.message}. Showing the default range.
        </div>
      )}
      <StatusBanner source={v.source} status={v.status} storeProblem={v.storeProblem} />

      <VerdictSection verdict={a.verdict} />

      <section className="section" aria-labelledby="findings-title">
        <h2 id="findings-title">Findings ({a.findings.length})</h2>
        {v.row.gain && (
          <p>
            Best opportunity: <strong>{v.row.gain.title}</strong>, {gainText(v.row.gain)}
            {v.row.gain.blocked ? " once the safety gate is verified" : ""}.
          </p>
        )}
        {a.findings.length === 0 ? (
          <p className="subtle">Nothing to change: no rule fired for this instance.</p>
        ) : (
          a.findings.map((f) => {
            const fields = allows(who.role, ACTIONS.createRollout) ? changeFieldsOf(f) : null;
            return (
              <div key={f.ruleId}>
                <FindingCard finding={f} />
                {fields && (
                  <p>
                    <Link
                      href={planHref(fields, [instance], f.ruleId)}
                      aria-label={`Plan a rollout: ${f.title}`}
                    >
                      Plan a rollout
                    </Link>{" "}
                    <span className="subtle">
                      of this change on this instance (the plan editor adds its control)
                    </span>
                  </p>
                )}
              </div>
            );
          })
        )}
      </section>

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

      <section className="section" aria-labelledby="metadata-title">
        <h2 id="metadata-title">Fleet metadata</h2>
        {v.storeProblem ? (
          <p className="field-error">
            The store cannot be opened, so metadata cannot be edited: {v.storeProblem}
          </p>
        ) : (
          <MetadataForm
            instance={instance}
            values={formValues(m, v.declaredMetadata?.entry ?? null)}
            declaredFrom={declaredNote(m, v.declaredMetadata)}
            version={m?.version ?? 0}
            canEdit={allows(who.role, ACTIONS.saveInstanceMetadata)}
            action={saveInstanceMetadata}
            updated={m ? `Last changed ${utc(new Date(m.updatedAt))} by ${m.updatedBy}.` : null}
          />
        )}
      </section>
    </>
  );
}
