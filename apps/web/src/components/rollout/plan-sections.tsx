/**
 * The plan page's server-rendered parts: its head, the banners about the plan's source, and the
 * engine's plan (waves, time to a verdict, dry run, exclusions) that the plan editor shows in its form.
 */
import { groupExclusions } from "@untorn/rollout/plan";
import Link from "next/link";
import { pct, pctRange, utc } from "../../lib/format.js";
import { instanceHref } from "../../lib/paths.js";
import { EXCLUSION_TEXT } from "../../lib/rollout-view.js";
import type { PlanView } from "../../server/rollouts/rollout-deps.js";
import { DemoOnlyBadge } from "../badges.js";

type Plan = Extract<PlanView, { kind: "planned" }>["plan"];

/** The title and how the engine plans; `rule` names the finding the plan came from (empty: none). */
export function PlanHead({ rule }: { rule: string }) {
  return (
    <div className="page-head">
      <div>
        <h1 id="plan-heading">Plan a rollout</h1>
        <p className="subtle">
          {rule ? (
            <>
              From the finding <code>{rule}</code>.{" "}
            </>
          ) : null}
          The engine plans the waves: a canary replica beside an untouched sibling replica as the control, the
          other replicas in batches, primaries last. Only instances whose safety gate allows the change are
          eligible.
        </p>
      </div>
    </div>
  );
}

/** No plan, a plan on a recording, or targets the fleet does not have (null: the form did not parse). */
export function PlanBanners({ view }: { view: PlanView | null }) {
  return (
    <>
      {view?.kind === "unavailable" && (
        <div className="banner banner-bad" role="alert">
          <strong>No plan.</strong> {view.reason}
        </div>
      )}
      {view?.kind === "planned" && view.frozenAt !== null && (
        <div className="banner banner-info" role="note" data-testid="replay-note">
          <strong>Recorded data.</strong> The fleet is a recording: gates read it as it was at{" "}
          {utc(new Date(view.frozenAt * 1000))}, and time stands still there. A rollout can be planned,
          created, approved and its steps marked done, but the recording cannot show a change made after it:
          no read-back verifies it and no bake judges it. To carry a rollout through to its verdict, run the
          live demo stack (<Link href="/docs/demo">the compose demo</Link>).
        </div>
      )}
      {view?.kind === "planned" && view.unknownTargets.length > 0 && (
        <div className="banner banner-warn" role="alert">
          Not in the fleet, left out: {view.unknownTargets.join(", ")}.
        </div>
      )}
    </>
  );
}

/**
 * The engine's plan: waves, time to a verdict, dry run and exclusions. `activeOn` holds the other active
 * rollouts by instance; `withoutControl` links the same plan without a required control (null: no need).
 */
export function PlanResult({
  plan,
  activeOn,
  withoutControl,
}: {
  plan: Plan;
  activeOn: ReadonlyMap<string, readonly string[]>;
  withoutControl: string | null;
}) {
  return (
    <>
      <section className="section" aria-labelledby="waves-title">
        <h2 id="waves-title">Waves</h2>
        {plan.waves.length === 0 ? (
          <p>No wave: no instance can take this change now.</p>
        ) : (
          <ol>
            {plan.waves.map((w) => (
              <li key={w.index}>
                Wave {w.index} ({w.kind}): {w.instances.join(", ")}
                {w.controls.length > 0
                  ? `; control${w.controls.length > 1 ? "s" : ""}: ${w.controls.join(", ")}`
                  : "; judged before/after (no concurrent control)"}
              </li>
            ))}
          </ol>
        )}
      </section>
      {plan.waves.length > 0 && <VerdictTime estimates={plan.bakeEstimates ?? []} />}
      <DryRun plan={plan} />
      <Exclusions exclusions={plan.exclusions} activeOn={activeOn} withoutControl={withoutControl} />
    </>
  );
}

function VerdictTime({ estimates }: { estimates: NonNullable<Plan["bakeEstimates"]> }) {
  return (
    <section className="section" aria-labelledby="verdict-time-title">
      <h2 id="verdict-time-title">Time to a verdict</h2>
      <p className="subtle">
        How long each wave&apos;s bake needs to decide the advisor&apos;s expected effect, from the noise of
        the baseline it will be judged against (90% power; the bake ends at the first decided look).
      </p>
      <ul data-testid="bake-estimates">
        {estimates.map((b) => (
          <li key={b.wave} data-wave={b.wave} data-outcome={b.outcome}>
            {b.message}
          </li>
        ))}
      </ul>
    </section>
  );
}

function DryRun({ plan }: { plan: Plan }) {
  return (
    <section className="section" aria-labelledby="dry-run-title">
      <h2 id="dry-run-title">Dry run</h2>
      <div className="table-scroll">
        <table className="data" aria-labelledby="dry-run-title">
          <thead>
            <tr>
              <th scope="col">Instance</th>
              <th scope="col">Wave</th>
              <th scope="col">Current → target</th>
              <th scope="col">Restart</th>
              <th scope="col">Safety gate</th>
              <th scope="col">Expected gain (write TPS)</th>
              <th scope="col" className="num">
                Confidence
              </th>
            </tr>
          </thead>
          <tbody>
            {plan.dryRun.map((r) => (
              <tr key={r.instance} data-instance={r.instance}>
                <th scope="row">
                  <Link href={instanceHref(r.instance)}>{r.instance}</Link>
                </th>
                <td>{r.wave !== null ? r.wave : r.control ? "control" : "–"}</td>
                <td>
                  {r.current ?? "unknown"} → {r.target ?? (r.excluded ? "not changed" : "–")}
                </td>
                <td>{r.restart === null ? "–" : r.restart ? "restart" : "no restart"}</td>
                <td>
                  {r.gate}
                  {r.demoOnly && (
                    <>
                      {" "}
                      <DemoOnlyBadge />
                    </>
                  )}
                </td>
                <td>
                  {r.expectedGain
                    ? pctRange(r.expectedGain.throughput.low, r.expectedGain.throughput.high)
                    : "–"}
                </td>
                <td className="num">{r.expectedGain ? pct(r.expectedGain.confidence) : "–"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="subtle">{plan.hypothesis.summary}</p>
    </section>
  );
}

function Exclusions({
  exclusions,
  activeOn,
  withoutControl,
}: {
  exclusions: Plan["exclusions"];
  activeOn: ReadonlyMap<string, readonly string[]>;
  withoutControl: string | null;
}) {
  return (
    <section className="section" aria-labelledby="excluded-title">
      <h2 id="excluded-title">Excluded ({exclusions.length})</h2>
      {exclusions.length === 0 ? (
        <p>None.</p>
      ) : (
        <ul data-testid="exclusions">
          {groupExclusions(exclusions, activeOn).map(({ instances, x }) => (
            <li key={x.instance} data-reason={x.reason} data-count={instances.length}>
              {instances.map((i, k) => (
                <span key={i}>
                  {k > 0 ? ", " : ""}
                  <Link href={instanceHref(i)}>{i}</Link>
                </span>
              ))}
              : <strong>{EXCLUSION_TEXT[x.reason]}</strong>.{" "}
              {x.reason === "another-rollout-active" ? (
                <BlockedBy ids={activeOn.get(x.instance) ?? []} detail={x.detail} />
              ) : (
                x.detail
              )}
              {x.toVerify.length > 0 && ` To verify: ${x.toVerify.join("; ")}.`}
            </li>
          ))}
        </ul>
      )}
      {withoutControl && ( // biome-ignore format: the sentence and the link are separate text nodes, as the page has them
        <p data-testid="plan-without-control">
          A standalone server (or a replica without a sibling) has no concurrent control: it can be judged
          before/after instead. <Link href={withoutControl}>Plan it without a required control</Link>.
        </p>
      )}
    </section>
  );
}

/** The rollout(s) holding an instance, as links (the plan's text names them by id). */
function BlockedBy({ ids, detail }: { ids: readonly string[]; detail: string }) {
  if (ids.length === 0) return <>{detail}</>;
  return (
    <>
      Another rollout is active on this instance:{" "}
      {ids.map((id, i) => (
        <span key={id}>
          {i > 0 ? ", " : ""}
          <Link href={`/rollouts/${encodeURIComponent(id)}`} data-testid="blocking-rollout">
            rollout {id.slice(0, 8)}
          </Link>
        </span>
      ))}{" "}
      (finish, abort or revert it first).
    </>
  );
}
