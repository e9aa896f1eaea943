import { ROLLOUT_STATUSES } from "@untorn/rollout/state";
import type { Metadata } from "next";
import Link from "next/link";
import { Suspense } from "react";
import { ParamProblems } from "../../components/param-problems.js";
import { OutcomeBadge, RolloutStatusBadge } from "../../components/rollout/badges.js";
import { SavedAt } from "../../components/rollout/saved-at.js";
import { RolloutStoreProblem } from "../../components/rollout/store-problem.js";
import { SectionSkeleton } from "../../components/skeletons.js";
import { utc } from "../../lib/format.js";
import { allows } from "../../lib/permissions.js";
import { GATE_TEXT, isActiveStatus } from "../../lib/rollout-view.js";
import { filterRollouts, parseRolloutsQuery, type RolloutsQuery } from "../../lib/rollouts-query.js";
import { requirePage } from "../../server/auth/access.js";
import {
  listRolloutSummaries,
  RolloutStoreError,
  type RolloutSummary,
} from "../../server/rollouts/rollouts.js";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Rollouts" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export default async function RolloutsPage({ searchParams }: { searchParams: SearchParams }) {
  const who = await requirePage("/rollouts", "/rollouts");
  const { query, problems } = parseRolloutsQuery(await searchParams);
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Rollouts</h1>
          <p className="subtle">
            Staged changes carried through the fleet wave by wave, each judged against an untouched control.
          </p>
        </div>
        {allows(who.role, "operator") && (
          <div>
            <Link className="button" href="/rollouts/new" data-testid="new-rollout">
              New rollout
            </Link>
          </div>
        )}
      </div>
      {problems.length > 0 && <ParamProblems problems={problems} resetHref="/rollouts" />}
      <RolloutFilters query={query} />
      <Suspense fallback={<SectionSkeleton label="Loading rollouts" lines={6} />}>
        <List query={query} />
      </Suspense>
    </>
  );
}

/** Search and status filter as a plain GET form: the URL is the state. */
function RolloutFilters({ query }: { query: RolloutsQuery }) {
  return (
    <search aria-label="Filter the rollouts">
      <form method="get" action="/rollouts" className="controls-form controls">
        <label>
          Search{" "}
          <input
            type="search"
            name="q"
            defaultValue={query.q}
            placeholder="title, change, who, id"
            maxLength={200}
          />
        </label>
        <label>
          State{" "}
          <select name="status" defaultValue={query.status ?? ""}>
            <option value="">Any</option>
            {ROLLOUT_STATUSES.map((st) => (
              <option key={st} value={st}>
                {st}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Apply</button>
        <a href="/rollouts">Reset</a>
      </form>
    </search>
  );
}

async function List({ query }: { query: RolloutsQuery }) {
  let all: RolloutSummary[];
  try {
    all = await listRolloutSummaries({ limit: 500 });
  } catch (err) {
    if (err instanceof RolloutStoreError) return <RolloutStoreProblem error={err.message} />;
    throw err;
  }
  const list = filterRollouts(all, query);
  if (all.length > 0 && list.length === 0)
    return (
      <p className="empty" role="status" data-testid="rollouts-none-match">
        No rollout matches these filters ({all.length} stored).{" "}
        <Link href="/rollouts">Clear the filters</Link>
      </p>
    );
  if (list.length === 0)
    return (
      <div className="empty" data-testid="rollouts-empty">
        <p>
          <strong>No rollout yet.</strong> A rollout carries one change (for example doublewrite off on
          replicas whose safety gate is verified) through the fleet: a canary beside an untouched control
          replica, then the other replicas, primaries last, with a gate before and after every wave.
        </p>
        <p>
          Start one with <code>untorn rollout create</code> (see{" "}
          <Link href="/docs/rollout">the rollout guide</Link> and{" "}
          <Link href="/docs/cli">the CLI reference</Link>), or with <strong>Plan a rollout</strong> on an
          actionable finding in <Link href="/recommendations">Recommendations</Link>.
        </p>
      </div>
    );
  const active = list.filter((r) => isActiveStatus(r.status)).length;
  return (
    <section className="section" aria-labelledby="rollouts-title">
      <h2 id="rollouts-title" className="visually-hidden">
        Rollouts
      </h2>
      <p className="subtle">
        {list.length < all.length ? `${list.length} of ${all.length} rollouts match the filters: ` : ""}
        {active} active, {list.length - active} finished. Active rollouts come first.
      </p>
      <div className="table-scroll">
        <table className="data" data-testid="rollouts-table">
          <caption className="visually-hidden">Rollouts, active first</caption>
          <thead>
            <tr>
              <th scope="col">Rollout</th>
              <th scope="col">State</th>
              <th scope="col">Progress</th>
              <th scope="col">Last gate</th>
              <th scope="col">Started by</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {list.map((r) => (
              <tr key={r.id} data-rollout={r.id} data-status={r.status}>
                <th scope="row">
                  <Link href={`/rollouts/${r.id}`}>{r.title}</Link>
                  <div className="subtle">{r.change}</div>
                  {r.problem && <div className="field-error">{r.problem}</div>}
                </th>
                <td>
                  <RolloutStatusBadge status={r.status} />
                </td>
                <td>
                  {r.progress.total > 0 && (
                    <progress
                      max={r.progress.total}
                      value={r.progress.done}
                      aria-label={`${r.title}: ${r.progress.text}`}
                    />
                  )}{" "}
                  {r.progress.text}
                  {r.currentWave !== null && isActiveStatus(r.status) ? ` · at wave ${r.currentWave}` : ""}
                </td>
                <td>
                  {r.lastGate ? (
                    <>
                      <OutcomeBadge outcome={r.lastGate.outcome} /> {GATE_TEXT[r.lastGate.gate]}, wave{" "}
                      {r.lastGate.wave}
                      {r.lastGate.instance ? ` (${r.lastGate.instance})` : ""}
                      <div className="subtle">{utc(new Date(r.lastGate.at * 1000))}</div>
                    </>
                  ) : (
                    <span className="subtle">none yet</span>
                  )}
                </td>
                <td>{r.createdBy}</td>
                <td>
                  {utc(new Date(r.createdAt * 1000))}
                  <SavedAt createdAt={r.createdAt} storedAt={r.storedAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
