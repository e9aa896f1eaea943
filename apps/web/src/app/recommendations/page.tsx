import type { Metadata } from "next";
import Link from "next/link";
import { Suspense } from "react";
import { SeverityBadge } from "../../components/badges.js";
import { EmptyState } from "../../components/empty-state.js";
import { ParamProblems } from "../../components/param-problems.js";
import { RecommendationsFilters } from "../../components/recommendations-filters.js";
import { SectionSkeleton } from "../../components/skeletons.js";
import { StatusBanner } from "../../components/status-banner.js";
import { TimeRangePicker } from "../../components/time-range-picker.js";
import { num, pct, pctRange } from "../../lib/format.js";
import { gainText } from "../../lib/gain.js";
import { instanceHref, ruleDocsHref } from "../../lib/paths.js";
import { ACTIONS, allows } from "../../lib/permissions.js";
import {
  parseRecommendationsQuery,
  type RecommendationsQuery,
  recommendationsQueryToParams,
} from "../../lib/recommendations-query.js";
import { changeFieldsOf, planHref } from "../../lib/rollout-link.js";
import { requirePage } from "../../server/auth/access.js";
import {
  filterGroups,
  groupFindings,
  type RuleGroup,
  waitingInstances,
} from "../../server/fleet/recommendations.js";
import { fleetView } from "../../server/fleet/views.js";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Recommendations" };

const SHOWN = 25;
/** Beyond this the page would carry thousands of rows: the fleet table is the place to browse them. */
const MAX_LISTED = 500;

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export default async function RecommendationsPage({ searchParams }: { searchParams: SearchParams }) {
  const who = await requirePage("/recommendations", "/recommendations");
  const canPlan = allows(who.role, ACTIONS.createRollout);
  const { query, problems } = parseRecommendationsQuery(await searchParams);
  const others = recommendationsQueryToParams(query);
  others.delete("range");
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Recommendations</h1>
          <p className="subtle">
            The fleet's findings grouped by rule: what to change, where, and what it should gain.
          </p>
        </div>
      </div>
      {problems.length > 0 && <ParamProblems problems={problems} resetHref="/recommendations" />}
      <RecommendationsFilters query={query} />
      <TimeRangePicker path="/recommendations" params={others} current={query.range} defaultKey={null} />
      <Suspense fallback={<SectionSkeleton label="Loading recommendations" lines={8} />}>
        <Groups canPlan={canPlan} query={query} />
      </Suspense>
    </>
  );
}

async function Groups({ canPlan, query }: { canPlan: boolean; query: RecommendationsQuery }) {
  const v = await fleetView(query.range);
  const s = v.snapshot;
  const all = s ? groupFindings(s.advice.values()) : [];
  const groups = filterGroups(all, query);
  const filtered = groups.length !== all.length || groups.some((g, i) => g !== all[i]);
  // "Plan a rollout" per rule: the change its actionable findings carry, on their instances.
  const plans = new Map<string, string>();
  if (canPlan && s) {
    const byRule = new Map<string, { fields: Record<string, string>; instances: string[] }>();
    for (const a of s.advice.values())
      for (const f of a.findings) {
        const fields = changeFieldsOf(f);
        if (!fields) continue;
        const e = byRule.get(f.ruleId) ?? { fields, instances: [] };
        if (JSON.stringify(e.fields) === JSON.stringify(fields)) e.instances.push(a.identity.instance);
        byRule.set(f.ruleId, e);
      }
    for (const [rule, e] of byRule)
      plans.set(rule, planHref(e.fields, e.instances.sort().slice(0, 500), rule));
  }
  return (
    <>
      <StatusBanner
        source={v.source}
        status={v.status}
        fetchedAt={s?.fetchedAt}
        storeProblem={s?.storeProblem}
      />
      {v.range?.note && (
        <div className="banner banner-warn" role="status" data-testid="range-note">
          <strong>Range not in the recording.</strong> {v.range.note}
        </div>
      )}
      {filtered && (
        <p data-testid="recommendations-count">
          {num(groups.reduce((n, g) => n + g.count, 0))} of {num(all.reduce((n, g) => n + g.count, 0))}{" "}
          findings match the filters.
        </p>
      )}
      {!s || s.rows.length === 0 ? (
        v.status.state !== "unavailable" && <EmptyState source={v.source} skipped={s?.skipped.length ?? 0} />
      ) : all.length === 0 ? (
        <p className="empty">No rule fired anywhere in the fleet: nothing to change.</p>
      ) : groups.length === 0 ? (
        <p className="empty" role="status">
          No finding matches these filters. <Link href="/recommendations">Clear the filters</Link>
        </p>
      ) : (
        <>
          <nav aria-label="Rules" className="section">
            <table className="data">
              <caption className="visually-hidden">Rules that fired, with the number of instances</caption>
              <thead>
                <tr>
                  <th scope="col">Rule</th>
                  <th scope="col">Severity</th>
                  <th scope="col" className="num">
                    Instances
                  </th>
                  <th scope="col" className="num">
                    Waiting for the gate
                  </th>
                  <th scope="col">Write TPS gain</th>
                </tr>
              </thead>
              <tbody>
                {groups.map((g) => (
                  <tr key={g.ruleId}>
                    <th scope="row">
                      <a href={`#rule-${g.ruleId}`}>{g.title}</a>
                    </th>
                    <td>
                      <SeverityBadge severity={g.severity} />
                    </td>
                    <td className="num">{num(g.count)}</td>
                    <td className="num">{num(g.blocked)}</td>
                    <td>{g.throughput ? pctRange(g.throughput.low, g.throughput.high) : "–"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <WaitingTotal count={waitingInstances(all).length} />
          </nav>
          {groups.map((g) => (
            <Group key={g.ruleId} group={g} plan={plans.get(g.ruleId) ?? null} />
          ))}
        </>
      )}
    </>
  );
}

function WaitingTotal({ count }: { count: number }) {
  return (
    <p data-testid="waiting-total">
      <Link href="/?only=waiting-for-gate">
        {num(count)} instance{count === 1 ? "" : "s"} waiting for the safety gate
      </Link>{" "}
      <span className="subtle">(an instance waiting on several rules counts once, as on the fleet page)</span>
    </p>
  );
}

function Group({ group: g, plan }: { group: RuleGroup; plan: string | null }) {
  const rows = (items: RuleGroup["instances"]) =>
    items.map((i) => (
      <tr key={i.instance}>
        <th scope="row">
          <Link href={instanceHref(i.instance)}>{i.instance}</Link>
        </th>
        <td>{i.cluster ?? "–"}</td>
        <td>
          <SeverityBadge severity={i.severity} />
        </td>
        <td>{i.gain ? gainText(i.gain) : "–"}</td>
        <td>{i.blocked ? "waiting for the safety gate" : i.actionable ? "actionable" : "information"}</td>
        <td className="num">{pct(i.confidence)}</td>
      </tr>
    ));
  const head = (
    <thead>
      <tr>
        <th scope="col">Instance</th>
        <th scope="col">Cluster</th>
        <th scope="col">Severity</th>
        <th scope="col">Expected gain</th>
        <th scope="col">State</th>
        <th scope="col" className="num">
          Confidence
        </th>
      </tr>
    </thead>
  );
  return (
    <section className="section" aria-labelledby={`rule-${g.ruleId}`} data-rule={g.ruleId}>
      <h2 id={`rule-${g.ruleId}`}>
        <SeverityBadge severity={g.severity} /> {g.title}{" "}
        <span className="subtle">
          ({num(g.count)} instance{g.count === 1 ? "" : "s"})
        </span>
      </h2>
      <p>
        <code>{g.ruleId}</code> · <a href={ruleDocsHref(g.docs)}>Rule documentation</a>
        {g.blocked > 0 ? ` · ${num(g.blocked)} waiting for the safety gate` : ""}
        {plan && (
          <>
            {" · "}
            <Link href={plan} aria-label={`Plan a rollout: ${g.title}`}>
              Plan a rollout
            </Link>
          </>
        )}
      </p>
      <div className="table-scroll">
        <table className="data" aria-label={`Instances affected by ${g.title}`}>
          {head}
          <tbody>{rows(g.instances.slice(0, SHOWN))}</tbody>
        </table>
      </div>
      {g.instances.length > SHOWN && (
        <details>
          <summary>{num(g.instances.length - SHOWN)} more instances</summary>
          <div className="table-scroll">
            <table className="data" aria-label={`More instances affected by ${g.title}`}>
              {head}
              <tbody>{rows(g.instances.slice(SHOWN, MAX_LISTED))}</tbody>
            </table>
          </div>
          {g.instances.length > MAX_LISTED && (
            <p className="subtle">
              And {num(g.instances.length - MAX_LISTED)} more: browse them in the{" "}
              <Link href="/">fleet table</Link>.
            </p>
          )}
        </details>
      )}
    </section>
  );
}
