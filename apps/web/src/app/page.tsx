import type { Metadata } from "next";
import { Suspense } from "react";
import { EmptyState } from "../components/empty-state.js";
import { FleetReading } from "../components/fleet-reading.js";
import { FleetTable } from "../components/fleet-table.js";
import { ParamProblems } from "../components/param-problems.js";
import { SavedFilters } from "../components/saved-filters.js";
import { CardsSkeleton, TableSkeleton } from "../components/skeletons.js";
import { StatusBanner } from "../components/status-banner.js";
import { SummaryCards } from "../components/summary-cards.js";
import { TimeRangePicker } from "../components/time-range-picker.js";
import { env } from "../env.js";
import { type FleetQuery, fleetQueryToParams, parseFleetQuery, parsePageNumber } from "../lib/fleet-query.js";
import type { TableRow } from "../lib/fleet-row.js";
import { num, seconds, utc } from "../lib/format.js";
import { requirePage } from "../server/auth/access.js";
import { getPageTrends } from "../server/fleet/trends.js";
import { clustersOf, fleetView, tablePage } from "../server/fleet/views.js";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Fleet" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export default async function FleetPage({ searchParams }: { searchParams: SearchParams }) {
  await requirePage("/", "/");
  const paging = parsePageNumber(await searchParams);
  const parsed = parseFleetQuery(paging.rest);
  const { query } = parsed;
  const problems = [...paging.problems, ...parsed.problems];
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Fleet</h1>
          <p className="subtle" style={{ margin: 0 }}>
            What doublewrite costs on each instance, whether it is write-bound, and whether dropping
            doublewrite is safe.
          </p>
          <Suspense fallback={null}>
            <FleetMeta range={query.range} />
          </Suspense>
        </div>
      </div>
      {problems.length > 0 && <ParamProblems problems={problems} resetHref="/" />}
      <TimeRangePicker path="/" params={withoutRange(query)} current={query.range} defaultKey={null} />
      <Suspense fallback={null}>
        <SavedFilters />
      </Suspense>
      <Suspense fallback={null}>
        <RangeNote range={query.range} />
      </Suspense>
      <Suspense
        fallback={
          <>
            <FleetReading />
            <CardsSkeleton />
          </>
        }
      >
        <SummarySection range={query.range} />
      </Suspense>
      <Suspense fallback={<TableSkeleton />}>
        <TableSection query={query} page={paging.page} />
      </Suspense>
    </>
  );
}

/** The fleet page's other parameters, for the range picker's links and form. */
function withoutRange(query: FleetQuery): URLSearchParams {
  const p = fleetQueryToParams(query);
  p.delete("range");
  return p;
}

/** Why the figures do not cover the range asked for (a recording holds one window). */
async function RangeNote({ range }: { range: string | null }) {
  const note = (await fleetView(range)).range?.note;
  if (!note) return null;
  return (
    <div className="banner banner-warn" role="status" data-testid="range-note">
      <strong>Range not in the recording.</strong> {note}
    </div>
  );
}

async function FleetMeta({ range }: { range: string | null }) {
  const v = await fleetView(range);
  const s = v.snapshot;
  if (!s) return null;
  return (
    <p className="subtle" style={{ margin: "0.2rem 0 0" }} data-testid="fleet-meta">
      Window {s.window} ending {utc(s.at)} · {num(s.queries)} queries in {seconds(s.fetchMs / 1000)}
      {v.source.kind === "recorded" ? " · recorded data" : ""}
      {v.source.kind !== "recorded" && !s.recordingRules.used && (
        <span data-testid="raw-rates-notice">
          {" "}
          · rates recomputed from raw series ({s.recordingRules.fallbackReason}): slower on large fleets, see
          docs/scaling.md
        </span>
      )}
      {v.source.kind !== "recorded" && s.recordingRules.used && (
        <span data-testid="recorded-tier-notice">
          {" "}
          ·{" "}
          {s.recordingRules.tier === "window"
            ? "window statistics from the recording rules"
            : "rates from the recording rules"}{" "}
          ({s.recordingRules.windowNote})
        </span>
      )}
      {s.clockNote && <span data-testid="clock-notice"> · {s.clockNote}</span>}
      {s.declared && !s.declared.problem && (
        <>
          {" "}
          · declared facts for {num(s.declared.instances)} instance{s.declared.instances === 1 ? "" : "s"}{" "}
          from <code>{s.declared.file.split("/").pop()}</code>
        </>
      )}
    </p>
  );
}

async function SummarySection({ range }: { range: string | null }) {
  const v = await fleetView(range);
  const s = v.snapshot;
  return (
    <>
      <StatusBanner
        source={v.source}
        status={v.status}
        fetchedAt={s?.fetchedAt}
        storeProblem={s?.storeProblem}
        declaredProblem={s?.declared?.problem}
      />
      {s && s.rows.length > 0 && (
        <SummaryCards summary={s.summary} stale={v.status.state === "stale"} range={range} />
      )}
      {(!s || s.rows.length === 0) && v.status.state !== "unavailable" && (
        <EmptyState source={v.source} skipped={s?.skipped.length ?? 0} />
      )}
      {s && s.warnings.length > 0 && (
        <details className="banner">
          <summary>
            {num(s.warnings.length)} data warning{s.warnings.length === 1 ? "" : "s"} (values dropped or
            partial answers)
          </summary>
          <ul>
            {s.warnings.slice(0, 50).map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        </details>
      )}
    </>
  );
}

/** The DW share column's basis for each instance of the page (which signal its DW share trend plots). */
function sharesBases(rows: readonly TableRow[], instances: readonly string[]) {
  const page = new Set(instances);
  return Object.fromEntries(
    rows.filter((r) => page.has(r.instance)).map((r) => [r.instance, r.dblwrShareBasis]),
  );
}

async function TableSection({ query, page }: { query: FleetQuery; page: number }) {
  const v = await fleetView(query.range);
  if (v.rows.length === 0) return null;
  const clusters = clustersOf(v.rows);
  const shown = tablePage(v.rows, query, page);
  return (
    <FleetTable
      encoded={shown.rows}
      total={v.rows.length}
      count={shown.count}
      page={shown.page}
      pages={shown.pages}
      offset={shown.offset}
      initial={query}
      clusters={query.cluster && !clusters.includes(query.cluster) ? [...clusters, query.cluster] : clusters}
      stale={v.status.state === "stale"}
      trends={getPageTrends(query.range, shown.instances, env(), {
        key: query.trend,
        bases: query.trend === "dw-share" ? sharesBases(v.rows, shown.instances) : {},
      })}
    />
  );
}
