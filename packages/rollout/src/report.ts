/**
 * The change report of a rollout: hypothesis (the advisor's finding and expected gain), plan, gate
 * results, timeline, effect per wave and metric with intervals, verdict, what remains and the revert
 * plan; as JSON (reportSchema) and Markdown, ready to paste into a change ticket. Pure.
 */
import { formatChange } from "@untorn/compare/format";
import { z } from "zod";
import { describeChange, instanceStepSchema } from "./change.js";
import { catchUpJudgementSchema, eventSchema, gateResultSchema, metricJudgementSchema } from "./events.js";
import {
  dryRunRowSchema,
  exclusionSchema,
  groupExclusions,
  hypothesisSummary,
  plannedWaveSchema,
} from "./plan.js";
import { ROLLOUT_STATUSES, type RolloutState } from "./state.js";

export const REPORT_VERDICTS = [
  "succeeded",
  "failed",
  "inconclusive",
  "in-progress",
  "aborted",
  "reverted",
] as const;

export const reportSchema = z
  .strictObject({
    schemaVersion: z.literal(1),
    id: z.string(),
    title: z.string(),
    change: z.string(),
    status: z.enum(ROLLOUT_STATUSES),
    verdict: z.enum(REPORT_VERDICTS),
    verdictReason: z.string(),
    generatedAt: z.number(),
    hypothesis: z.strictObject({
      summary: z.string(),
      findings: z.array(
        z.strictObject({ instance: z.string(), ruleId: z.string(), title: z.string(), summary: z.string() }),
      ),
    }),
    plan: z.strictObject({
      waves: z.array(plannedWaveSchema.extend({ phase: z.string() })),
      dryRun: z.array(dryRunRowSchema),
      exclusions: z.array(exclusionSchema),
    }),
    gates: z.array(gateResultSchema.omit({ comparison: true })),
    effects: z.array(metricJudgementSchema.extend({ wave: z.number().int(), at: z.number() })),
    catchUp: z
      .array(catchUpJudgementSchema.extend({ wave: z.number().int(), at: z.number() }))
      .describe(
        "Replication catch-up per wave and changed replica, from the last judgement of each wave (not-applicable where nobody lagged).",
      ),
    timeline: z.array(eventSchema.omit({ gate: true, output: true })),
    remaining: z.array(z.strictObject({ instance: z.string(), wave: z.number().int(), status: z.string() })),
    revertPlan: z.array(instanceStepSchema.shape.revert.extend({ instance: z.string(), status: z.string() })),
    demoOnly: z
      .array(z.string())
      .describe(
        "Instances whose safety gate was verified on torn-write protection declared for a demo only, not on real storage.",
      ),
  })
  .meta({ id: "RolloutReport", description: "The change report of one rollout." });
export type Report = z.infer<typeof reportSchema>;

/**
 * Waves that passed although their last bake judgement was not a pass (inconclusive, or no data): a
 * person accepted them (approve on the pause).
 */
function acceptedOnInconclusive(s: RolloutState): number[] {
  return s.waves
    .filter((w) => w.phase === "passed")
    .map((w) => w.index)
    .filter(
      (i) =>
        (s.events.findLast((e) => e.gate?.gate === "bake" && e.gate.wave === i)?.gate?.outcome ?? "pass") !==
        "pass",
    );
}

function verdictOf(s: RolloutState): { verdict: Report["verdict"]; reason: string } {
  switch (s.status) {
    case "completed": {
      if (s.waves.length === 0)
        return { verdict: "inconclusive", reason: "No instance was eligible: nothing was changed." };
      const accepted = acceptedOnInconclusive(s);
      if (accepted.length > 0)
        return {
          verdict: "inconclusive",
          reason: `Completed, but ${accepted.length === 1 ? "wave" : "waves"} ${accepted.join(", ")} passed only because a person accepted a judgement that was not a pass (inconclusive, or no data): the data did not prove the change (see the effects and the timeline).`,
        };
      return { verdict: "succeeded", reason: "Every wave passed its gates." };
    }
    case "reverted":
      return { verdict: "reverted", reason: "Every changed instance was reverted to its previous value." };
    case "aborted":
      return {
        verdict: "aborted",
        reason: s.events.findLast((e) => e.type === "aborted")?.message ?? "Aborted.",
      };
    case "halted":
      return {
        verdict: "failed",
        reason: s.events.findLast((e) => e.type === "revert-proposed")?.message ?? "Halted.",
      };
    case "paused":
      return s.pause?.reason === "inconclusive"
        ? { verdict: "inconclusive", reason: s.pause.message }
        : { verdict: "in-progress", reason: `Paused: ${s.pause?.message ?? ""}` };
    default: {
      const w = s.currentWave === null ? undefined : s.waves[s.currentWave];
      if (!w) return { verdict: "in-progress", reason: "No wave is under way." };
      const phase =
        w.phase === "pending"
          ? w.approvedAt === null
            ? "has not started: it waits for its approval"
            : "has not started: it waits for its pre-wave gate"
          : w.phase === "applying"
            ? "is applying its steps"
            : w.phase === "baking"
              ? "is baking"
              : `is ${w.phase}`;
      return {
        verdict: "in-progress",
        reason: `Wave ${w.index} (${w.index + 1} of ${s.waves.length}) ${phase}.`,
      };
    }
  }
}

const FINISHED: readonly string[] = ["completed", "reverted", "aborted"];

/** What still waits for a person, before the steps that remain: a paused or halted rollout's decision. */
export function decisionOf(r: Pick<Report, "status" | "verdictReason" | "plan">): string | null {
  if (r.status === "reverted" || r.status === "aborted") {
    const unrun = r.plan.waves.filter((w) => w.phase === "pending");
    if (unrun.length === 0) return null;
    const names = unrun.map((w) => `wave ${w.index} (${w.instances.join(", ")})`).join(", ");
    return `Nothing: the rollout was ${r.status}, so ${names} will not run.`;
  }
  if (r.status === "paused") return `A person's decision: ${r.verdictReason}`;
  if (r.status === "halted") return `A person's decision: revert (proposed) or abort. ${r.verdictReason}`;
  if (r.status === "reverting") return "Carry out each instance's revert step (see the revert plan).";
  return null;
}

export function buildReport(s: RolloutState, now: number): Report {
  const { verdict, reason } = verdictOf(s);
  const gates = s.events.flatMap((e) => (e.gate ? [e.gate] : []));
  const lastBake = new Map<number, (typeof gates)[number]>();
  for (const g of gates) if (g.gate === "bake") lastBake.set(g.wave, g);
  const changed = new Set(["applied", "verified", "failed", "reverting", "revert-applied"]);
  return {
    schemaVersion: 1,
    id: s.id,
    title: s.title,
    change: describeChange(s.plan.change),
    status: s.status,
    verdict,
    verdictReason: reason,
    generatedAt: now,
    // Said again from the dry run: an older plan's text could promise "0% to 0%".
    hypothesis: {
      summary: hypothesisSummary(s.plan.change, s.plan.dryRun),
      findings: s.plan.hypothesis.findings,
    },
    plan: {
      waves: s.plan.waves.map((w) => ({ ...w, phase: s.waves[w.index]?.phase ?? "pending" })),
      dryRun: s.plan.dryRun,
      exclusions: s.plan.exclusions,
    },
    gates: gates.map(({ comparison: _c, ...g }) => g),
    effects: [...lastBake.values()].flatMap((g) =>
      (g.judgement ?? []).map((j) => ({ ...j, wave: g.wave, at: g.at })),
    ),
    catchUp: [...lastBake.values()].flatMap((g) =>
      (g.catchUp ?? []).map((c) => ({ ...c, wave: g.wave, at: g.at })),
    ),
    timeline: s.events.map(({ gate: _g, output: _o, ...e }) => e),
    // A finished rollout (completed, reverted, aborted) leaves no step to do.
    remaining: FINISHED.includes(s.status)
      ? []
      : s.instances
          .filter((i) => i.status === "pending" || i.status === "applying" || i.status === "applied")
          .map((i) => ({ instance: i.instance, wave: i.wave, status: i.status })),
    revertPlan: s.instances
      .filter((i) => changed.has(i.status))
      .map((i) => ({
        instance: i.instance,
        status: i.status,
        ...s.plan.steps.find((x) => x.instance === i.instance)!.revert,
      })),
    demoOnly: demoOnlyInstances(s),
  };
}

/** Instances whose gate rests on a demo-only declaration, from the plan's dry run and every gate since. */
export function demoOnlyInstances(s: RolloutState): string[] {
  const out = new Set(s.plan.dryRun.filter((d) => d.demoOnly).map((d) => d.instance));
  for (const e of s.events)
    for (const c of e.gate?.checks ?? []) if (c.demoOnly && c.instance) out.add(c.instance);
  return [...out].sort();
}

/** The sentence every rendering of a report with demo-only instances carries at its top. */
export function demoOnlySentence(instances: readonly string[]): string | null {
  if (instances.length === 0) return null;
  return `Demo only: the safety gate of ${instances.join(", ")} was verified on torn-write protection declared for a demo, not on real storage. Nothing here shows that doublewrite may be turned off on real storage.`;
}

const iso = (t: number) => new Date(t * 1000).toISOString().replace(".000Z", "Z");
const cell = (x: unknown) =>
  String(x ?? "–")
    .replaceAll("|", "\\|")
    .replaceAll("\n", " ");
const pctRange = (r: { low: number; high: number } | null) =>
  r ? `${Math.round(r.low * 100)}–${Math.round(r.high * 100)}%` : "–";
const ratio = (x: number | null) => (x === null ? "–" : formatChange(x));

/** The report as Markdown for a change ticket. */
export function renderReportMarkdown(r: Report): string {
  const out: string[] = [];
  out.push(`# Change report: ${r.title}`, "");
  out.push(
    `- Rollout: \`${r.id}\``,
    `- Change: ${r.change}`,
    `- Status: ${r.status}`,
    `- **Verdict: ${r.verdict}**: ${r.verdictReason}`,
    `- Generated: ${iso(r.generatedAt)}`,
    "",
  );
  const demo = demoOnlySentence(r.demoOnly);
  if (demo) out.push(`> **${demo}**`, "");
  out.push("## Hypothesis", "", r.hypothesis.summary, "");
  for (const f of r.hypothesis.findings)
    out.push(`- ${f.instance}: **${f.title}** (${f.ruleId}). ${f.summary}`);
  out.push("", "## Plan", "", "| Wave | Kind | Instances | Control | Phase |", "|---|---|---|---|---|");
  for (const w of r.plan.waves)
    out.push(
      `| ${w.index} | ${w.kind} | ${w.instances.join(", ")} | ${w.controls.join(", ") || "before/after"} | ${w.phase} |`,
    );
  out.push(
    "",
    "| Instance | Role | Wave | Current → target | Restart | Gate | Expected throughput | Bytes/txn | Confidence | Excluded |",
    "|---|---|---|---|---|---|---|---|---|---|",
  );
  for (const d of r.plan.dryRun)
    out.push(
      `| ${cell(d.instance)} | ${cell(d.role)} | ${cell(d.wave)}${d.control ? " (control)" : ""} | ${cell(d.current)} → ${cell(d.target)} | ${d.restart === null ? "–" : d.restart ? "yes" : "no"} | ${d.gate} | ${pctRange(d.expectedGain?.throughput ?? null)} | ${pctRange(d.expectedGain?.writeBytesPerTxn ?? null)} | ${d.expectedGain ? d.expectedGain.confidence.toFixed(2) : "–"} | ${cell(d.excluded)} |`,
    );
  if (r.plan.exclusions.length > 0) {
    out.push("", "Excluded:", "");
    for (const { instances, x } of groupExclusions(r.plan.exclusions)) {
      const verify = x.toVerify.length > 0 ? ` To verify: ${x.toVerify.join("; ")}.` : "";
      out.push(`- ${instances.join(", ")}: **${x.reason}**. ${x.detail}${verify}`);
    }
  }
  out.push(
    "",
    "## Gates",
    "",
    "| Time | Gate | Wave | Instance | Outcome | Summary |",
    "|---|---|---|---|---|---|",
  );
  for (const g of r.gates)
    out.push(
      `| ${iso(g.at)} | ${g.gate} | ${g.wave} | ${cell(g.instance)} | ${g.outcome} | ${cell(g.summary)} |`,
    );
  out.push("", "## Effect per wave and metric", "");
  if (r.effects.length === 0) out.push("No wave has been judged yet.");
  else {
    out.push(
      "| Wave | Metric | Role | Change | 95% interval | Verdict | Criterion | Outcome |",
      "|---|---|---|---|---|---|---|---|",
    );
    for (const e of r.effects)
      out.push(
        `| ${e.wave} | ${e.metric} | ${e.role} | ${ratio(e.ratio)} | ${ratio(e.ciLow)} … ${ratio(e.ciHigh)} | ${e.verdict} | ${cell(e.criterion)} | ${e.outcome} |`,
      );
  }
  out.push("", "## Replication catch-up", "");
  if (r.catchUp.length === 0) out.push("No catch-up judgement is recorded yet.");
  else {
    const lagged = (l: Report["catchUp"][number]["lag"][number]["before"]) =>
      l.samples === 0 ? "no data" : `${Math.round(l.laggingSeconds)} s (max ${l.maxSeconds ?? "–"} s)`;
    const perSecond = (x: number | null) => (x === null ? "–" : x.toFixed(0));
    out.push(
      "Apply rate (transactions/s) over the samples where the replica or its control lagged by more than the threshold; judged only where one of them lagged during the bake.",
      "",
      "| Wave | Instance | Role | Lagging before → bake | Control lagging before → bake | Apply rate while lagging, before → bake (control) | Change vs control | 95% interval | Verdict | Outcome |",
      "|---|---|---|---|---|---|---|---|---|---|",
    );
    for (const c of r.catchUp) {
      const [t, ...controls] = c.lag;
      const ctl = controls[0];
      out.push(
        `| ${c.wave} | ${c.instance} | ${c.role} | ${t ? `${lagged(t.before)} → ${lagged(t.after)}` : "–"} | ${ctl ? `${lagged(ctl.before)} → ${lagged(ctl.after)}` : "–"} | ${t ? `${perSecond(t.before.applyRateWhileLagging)} → ${perSecond(t.after.applyRateWhileLagging)}` : "–"} (${ctl ? `${perSecond(ctl.before.applyRateWhileLagging)} → ${perSecond(ctl.after.applyRateWhileLagging)}` : "–"}) | ${ratio(c.ratio)} | ${ratio(c.ciLow)} … ${ratio(c.ciHigh)} | ${c.verdict} | **${c.outcome}** |`,
      );
    }
    for (const c of r.catchUp)
      out.push("", `- ${c.instance} (wave ${c.wave}, lag > ${c.thresholdSeconds} s): ${cell(c.message)}`);
  }
  out.push("", "## Timeline", "", "| Time | Actor | Event | Message |", "|---|---|---|---|");
  for (const e of r.timeline)
    out.push(`| ${iso(e.at)} | ${cell(e.actor.id)} | ${e.type} | ${cell(e.message)} |`);
  out.push("", "## What remains", "");
  const decision = decisionOf(r);
  if (decision) out.push(decision, "");
  if (r.remaining.length === 0 && !decision) out.push("Nothing.");
  for (const x of r.remaining) out.push(`- ${x.instance} (wave ${x.wave}): ${x.status}`);
  out.push("", "## Revert plan", "");
  if (r.revertPlan.length === 0) out.push("No instance is changed: nothing to revert.");
  for (const x of r.revertPlan) {
    out.push(
      `### ${x.instance} (back to ${x.previousValue ?? "its previous value"}, ${x.restart ? "restart" : "no restart"})`,
      "",
    );
    for (const st of x.steps) out.push(`1. ${st}`);
    for (const sn of x.snippets) out.push("", `\`\`\`${sn.language}`, sn.text, "```");
    out.push("");
  }
  return `${out.join("\n").trimEnd()}\n`;
}
