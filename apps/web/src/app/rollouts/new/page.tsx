import { randomUUID } from "node:crypto";
import type { Metadata } from "next";
import { type Candidate, PlanEditor } from "../../../components/rollout/plan-editor.js";
import { PlanBanners, PlanHead, PlanResult } from "../../../components/rollout/plan-sections.js";
import { parsePlanForm, parseTargets, type Raw } from "../../../lib/rollout-form.js";
import { requirePage } from "../../../server/auth/access.js";
import { createRollout } from "../../../server/rollouts/rollout-actions.js";
import { type PlanView, planFor } from "../../../server/rollouts/rollout-deps.js";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Plan a rollout" };

type Query = Record<string, string | string[] | undefined>;
type SearchParams = Promise<Query>;
type Planned = Extract<PlanView, { kind: "planned" }>;
type Entries = [string, string][];

function entriesOf(q: Query): Entries {
  const out: Entries = [];
  for (const [k, v] of Object.entries(q))
    for (const x of Array.isArray(v) ? v : v === undefined ? [] : [v]) out.push([k, x]);
  return out;
}

const only = (entries: Raw, name: string): Raw => [...entries].filter(([k]) => k === name);
const valuesOf = (entries: Entries, name: string) =>
  new Set(entries.filter(([k]) => k === name).map(([, v]) => v));

/** What the plan considers: the finding's instances (kept across updates) and the ticked ones. */
const consideredOf = (entries: Entries) =>
  parseTargets(
    [...only(entries, "considered"), ...only(entries, "target"), ...only(entries, "targets")].map(
      ([, v]) => ["target", v] as const,
    ),
  );

/** The finding the plan came from, when the query names a well-formed rule id ("" otherwise). */
const ruleOf = (rule: Query[string]) =>
  typeof rule === "string" && /^[a-z0-9-]{1,100}$/.test(rule) ? rule : "";

/** The editor's checkboxes: planned in a wave now, or offered before and unticked (to tick again). */
function candidatesOf(
  plan: Planned["plan"] | null,
  offered: ReadonlySet<string>,
  ticked: ReadonlySet<string>,
  edited: boolean,
): Candidate[] {
  const waveOf = new Map<string, number>();
  for (const w of plan?.waves ?? []) for (const i of w.instances) waveOf.set(i, w.index);
  const topo = new Map((plan?.topology ?? []).map((t) => [t.instance, t]));
  const eligible = [
    ...new Set([...waveOf.keys(), ...[...offered].filter((o) => !ticked.has(o) && edited)]),
  ].sort();
  return eligible.map((i) => ({
    instance: i,
    role: topo.get(i)?.role ?? null,
    cluster: topo.get(i)?.cluster ?? null,
    wave: waveOf.get(i) ?? null,
    checked: waveOf.has(i),
  }));
}

/** This page without a required control: the same plan, judged before/after. */
const withoutControlHref = (entries: Entries) =>
  `/rollouts/new?${new URLSearchParams([...entries.filter(([k]) => k !== "requireControl"), ["requireControl", "off"]])}`;

/** On a recording: its clock's "now" as the editor shows it (`YYYY-MM-DDTHH:MM`, UTC). */
const clockNowOf = (view: PlanView | null) =>
  view?.kind === "planned" && view.frozenAt !== null
    ? new Date(view.frozenAt * 1000).toISOString().slice(0, 16)
    : null;

export default async function NewRolloutPage({ searchParams }: { searchParams: SearchParams }) {
  const q = await searchParams;
  const entries = entriesOf(q);
  const here = `/rollouts/new?${new URLSearchParams(entries)}`;
  await requirePage("/rollouts/new", here);

  const form = parsePlanForm(entries);
  const edited = q.edited !== undefined;
  const considered = consideredOf(entries);
  const offered = valuesOf(entries, "offered");
  const ticked = valuesOf(entries, "target");
  const errors: Record<string, string> = form.ok ? {} : { ...form.fieldErrors };
  if (!considered.ok) errors.target = considered.message;
  const consideredList = considered.ok ? considered.targets : [];
  // The plan's targets: those considered, minus the eligible ones the operator unticked.
  const planTargets = consideredList.filter((t) => !(edited && offered.has(t) && !ticked.has(t)));
  const view = form.ok && considered.ok ? await planFor({ ...form.value, targets: planTargets }) : null;
  const planned = view?.kind === "planned" ? view : null;
  const plan = planned?.plan ?? null;
  const rule = ruleOf(q.rule);
  // Excluded only for want of a control while one is required: the same plan, judged before/after.
  const withoutControl =
    plan &&
    form.ok &&
    form.value.policy.requireControl !== false &&
    plan.exclusions.some((x) => x.reason === "no-control-sibling")
      ? withoutControlHref(entries)
      : null;

  return (
    <>
      <PlanHead rule={rule} />
      <PlanBanners view={view} />
      <PlanEditor
        action={createRollout}
        values={form.values}
        errors={errors}
        candidates={candidatesOf(plan, offered, ticked, edited)}
        considered={consideredList}
        rule={rule}
        idempotencyKey={randomUUID()}
        canCreate={plan !== null && plan.waves.length > 0}
        planned={planned !== null}
        clockNow={clockNowOf(view)}
      >
        {planned && (
          <PlanResult plan={planned.plan} activeOn={planned.activeOn} withoutControl={withoutControl} />
        )}
      </PlanEditor>
    </>
  );
}
