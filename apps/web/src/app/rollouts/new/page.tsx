import { randomUUID } from "node:crypto";
import type { Metadata } from "next";
import Link from "next/link";
import { type Candidate, PlanEditor } from "../../../components/rollout/plan-editor.js";
import { pct, pctRange, utc } from "../../../lib/format.js";
import { instanceHref } from "../../../lib/paths.js";
import { parsePlanForm, parseTargets, type Raw } from "../../../lib/rollout-form.js";
import { requirePage } from "../../../server/access.js";
import { createRollout } from "../../../server/rollout-actions.js";
import { planFor } from "../../../server/rollout-deps.js";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Plan a rollout" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

const REASONS: Record<string, string> = {
  "gate-not-verified": "safety gate not verified",
  "provider-managed": "managed by the provider",
  "version-without-setting": "this server version has no such setting",
  "platform-mismatch": "another platform",
  "already-at-target": "already at the target value",
  "read-only-server": "read-only server",
  "inherits-setting": "inherits the setting from its primary",
  "no-control-sibling": "no sibling replica for a control",
  "no-switchover-target": "no changed replica to switch over to",
  "role-unknown": "role unknown",
  "another-rollout-active": "another rollout is active on it",
  "duplicate-instance": "listed twice",
};

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

function entriesOf(q: Record<string, string | string[] | undefined>): [string, string][] {
  const out: [string, string][] = [];
  for (const [k, v] of Object.entries(q))
    for (const x of Array.isArray(v) ? v : v === undefined ? [] : [v]) out.push([k, x]);
  return out;
}

const only = (entries: Raw, name: string): Raw => [...entries].filter(([k]) => k === name);

export default async function NewRolloutPage({ searchParams }: { searchParams: SearchParams }) {
  const q = await searchParams;
  const entries = entriesOf(q);
  const here = `/rollouts/new?${new URLSearchParams(entries)}`;
  await requirePage("/rollouts/new", here);

  const form = parsePlanForm(entries);
  const edited = q.edited !== undefined;
  // What the plan considers: the finding's instances (kept across updates), minus the eligible ones
  // the operator unticked.
  const considered = parseTargets(
    [...only(entries, "considered"), ...only(entries, "target"), ...only(entries, "targets")].map(
      ([, v]) => ["target", v] as const,
    ),
  );
  const offered = new Set(entries.filter(([k]) => k === "offered").map(([, v]) => v));
  const ticked = new Set(entries.filter(([k]) => k === "target").map(([, v]) => v));
  const errors: Record<string, string> = form.ok ? {} : { ...form.fieldErrors };
  if (!considered.ok) errors.target = considered.message;
  const consideredList = considered.ok ? considered.targets : [];
  const planTargets = consideredList.filter((t) => !(edited && offered.has(t) && !ticked.has(t)));
  const view = form.ok && considered.ok ? await planFor({ ...form.value, targets: planTargets }) : null;
  const plan = view?.kind === "planned" ? view.plan : null;

  const waveOf = new Map<string, number>();
  for (const w of plan?.waves ?? []) for (const i of w.instances) waveOf.set(i, w.index);
  const topo = new Map((plan?.topology ?? []).map((t) => [t.instance, t]));
  // Eligible: planned in a wave now, or offered before and unticked (so it can be ticked again).
  const eligible = [
    ...new Set([...waveOf.keys(), ...[...offered].filter((o) => !ticked.has(o) && edited)]),
  ].sort();
  const candidates: Candidate[] = eligible.map((i) => ({
    instance: i,
    role: topo.get(i)?.role ?? null,
    cluster: topo.get(i)?.cluster ?? null,
    wave: waveOf.get(i) ?? null,
    checked: waveOf.has(i),
  }));
  const rule = typeof q.rule === "string" && /^[a-z0-9-]{1,100}$/.test(q.rule) ? q.rule : "";
  // Excluded only for want of a control while one is required: the same plan, judged before/after.
  const withoutControl =
    plan &&
    form.ok &&
    form.value.policy.requireControl !== false &&
    plan.exclusions.some((x) => x.reason === "no-control-sibling")
      ? `/rollouts/new?${new URLSearchParams([
          ...entries.filter(([k]) => k !== "requireControl"),
          ["requireControl", "off"],
        ])}`
      : null;

  return (
    <>
      <div className="page-head">
        <div>
          <h1 id="plan-heading">Plan a rollout</h1>
          <p className="subtle">
            {rule ? (
              <>
                From the finding <code>{rule}</code>.{" "}
              </>
            ) : null}
            The engine plans the waves: a canary replica beside an untouched sibling replica as the control,
            the other replicas in batches, primaries last. Only instances whose safety gate allows the change
            are eligible.
          </p>
        </div>
      </div>
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
      <PlanEditor
        action={createRollout}
        values={form.values}
        errors={errors}
        candidates={candidates}
        considered={consideredList}
        rule={rule}
        idempotencyKey={randomUUID()}
        canCreate={plan !== null && plan.waves.length > 0}
        clockNow={
          view?.kind === "planned" && view.frozenAt !== null
            ? new Date(view.frozenAt * 1000).toISOString().slice(0, 16)
            : null
        }
      >
        {plan && (
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
            {plan.waves.length > 0 && (
              <section className="section" aria-labelledby="verdict-time-title">
                <h2 id="verdict-time-title">Time to a verdict</h2>
                <p className="subtle">
                  How long each wave&apos;s bake needs to decide the advisor&apos;s expected effect, from the
                  noise of the baseline it will be judged against (90% power; the bake ends at the first
                  decided look).
                </p>
                <ul data-testid="bake-estimates">
                  {(plan.bakeEstimates ?? []).map((b) => (
                    <li key={b.wave} data-wave={b.wave} data-outcome={b.outcome}>
                      {b.message}
                    </li>
                  ))}
                </ul>
              </section>
            )}
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
                        <td>{r.gate}</td>
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
            <section className="section" aria-labelledby="excluded-title">
              <h2 id="excluded-title">Excluded ({plan.exclusions.length})</h2>
              {plan.exclusions.length === 0 ? (
                <p>None.</p>
              ) : (
                <ul data-testid="exclusions">
                  {plan.exclusions.map((x) => (
                    <li key={x.instance} data-reason={x.reason}>
                      <Link href={instanceHref(x.instance)}>{x.instance}</Link>:{" "}
                      <strong>{REASONS[x.reason] ?? x.reason}</strong>.{" "}
                      {x.reason === "another-rollout-active" && view?.kind === "planned" ? (
                        <BlockedBy ids={view.activeOn.get(x.instance) ?? []} detail={x.detail} />
                      ) : (
                        x.detail
                      )}
                      {x.toVerify.length > 0 && ` To verify: ${x.toVerify.join("; ")}.`}
                    </li>
                  ))}
                </ul>
              )}
              {withoutControl && (
                <p data-testid="plan-without-control">
                  A standalone server (or a replica without a sibling) has no concurrent control: it can be
                  judged before/after instead.{" "}
                  <Link href={withoutControl}>Plan it without a required control</Link>.
                </p>
              )}
            </section>
          </>
        )}
      </PlanEditor>
    </>
  );
}
