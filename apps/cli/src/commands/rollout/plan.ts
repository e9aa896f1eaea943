/** `untorn rollout plan`: the dry run, nothing stored. */
import { type BakeEstimate, estimateBakes } from "@untorn/rollout/bake-estimate";
import { planInputSchema, planRollout } from "@untorn/rollout/plan";
import { planBakeEstimates } from "@untorn/rollout-runner/bake-estimate";
import { replayReconcileOptions } from "@untorn/rollout-runner/replay";
import type { Command } from "commander";
import type { Io } from "../../io.js";
import { metadataOption } from "../../metadata.js";
import { sourceOptions } from "../../source.js";
import { type PlanFlags, planInput } from "./plan-input.js";
import { rolloutError } from "./store.js";

function planText(plan: ReturnType<typeof planRollout>, estimates: readonly BakeEstimate[]): string {
  const lines: string[] = [];
  lines.push(
    `Change: ${JSON.stringify(plan.change)}${plan.removesTornPageProtection ? " (removes torn-page protection: needs a verified safety gate)" : ""}`,
  );
  lines.push(`Hypothesis: ${plan.hypothesis.summary}`);
  lines.push("");
  for (const w of plan.waves)
    lines.push(
      `wave ${w.index} (${w.kind}): ${w.instances.join(", ")}${w.controls.length ? `; control ${w.controls.join(", ")}` : ""}`,
    );
  lines.push("");
  lines.push("instance\tcurrent → target\trestart\tgate\texpected gain");
  for (const r of plan.dryRun) {
    const gain = r.expectedGain ? `${r.expectedGain.title}` : "-";
    lines.push(
      `${r.instance}\t${r.current ?? "?"} → ${r.target ?? "?"}\t${r.restart === null ? "?" : r.restart ? "yes" : "no"}\t${r.gate}\t${r.excluded ? `excluded: ${r.excluded}` : gain}`,
    );
  }
  if (estimates.length) {
    lines.push("");
    lines.push("Time to a verdict:");
    for (const e of estimates) lines.push(`  ${e.message}`);
  }
  if (plan.exclusions.length) {
    lines.push("");
    for (const e of plan.exclusions)
      lines.push(
        `excluded ${e.instance}: ${e.reason}: ${e.detail}${e.toVerify.length ? ` (to verify: ${e.toVerify.join("; ")})` : ""}`,
      );
  }
  return `${lines.join("\n")}\n`;
}

/** `rollout plan`: the dry run, with each wave's time to a verdict. */
export function registerPlan(rollout: Command, io: Io): void {
  metadataOption(
    sourceOptions(
      rollout
        .command("plan")
        .description(
          "Dry run: waves, per-instance current → target, restart, safety gate and expected gain; nothing is stored.",
        ),
    ),
  )
    .option(
      "--change <json|@file|kind>",
      'the change, e.g. doublewrite-off or \'{"kind":"doublewrite-pages","pages":128}\'',
    )
    .option("--targets <list>", "comma-separated instances to change (default: every eligible instance)")
    .option("--policy <file>", "rollout policy JSON (property policy of rollout-plan-input.schema.json)")
    .option(
      "--input <file>",
      "a whole plan input (rollout-plan-input.schema.json) instead of the flags above",
    )
    .option("--json", "print the plan as JSON (rollout-plan.schema.json)")
    .action(async (flags: PlanFlags, cmd: Command) => {
      const all = { ...cmd.optsWithGlobals(), ...flags } as PlanFlags;
      const { input, at, warnings, source } = await planInput(all, io);
      let plan: ReturnType<typeof planRollout>;
      let parsed: ReturnType<typeof planInputSchema.parse>;
      try {
        parsed = planInputSchema.parse(input);
        plan = planRollout(parsed);
      } catch (e) {
        throw rolloutError(e);
      }
      // Time to a verdict per wave, from the baseline the bake would be judged against (none from --input).
      const replayed = source?.replay ? replayReconcileOptions(source.api, source.replay) : null;
      const estimated = source
        ? await planBakeEstimates(replayed?.api ?? source.api, plan, parsed.policy, {
            now: at,
            ...(replayed ? { rateWindow: replayed.rateWindow } : {}),
            ...(replayed?.bakeStepSeconds ? { bakeStepSeconds: replayed.bakeStepSeconds } : {}),
          })
        : { estimates: estimateBakes(plan, parsed.policy, []), warnings: [] };
      io.out(
        all.json
          ? `${JSON.stringify({ ...plan, bakeEstimates: estimated.estimates }, null, 2)}\n`
          : planText(plan, estimated.estimates),
      );
      for (const w of [...warnings, ...estimated.warnings]) io.err(`warning: ${w}\n`);
    });
}
