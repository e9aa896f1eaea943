import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { RolloutEvent } from "@untorn/rollout/events";
import { parseRolloutState } from "@untorn/rollout/state";
import { repoRoot } from "@untorn/testkit/process";
import { ReportPage, RolloutPage } from "../../fixtures/pages/rollout-pages.js";
import { expect, test } from "../../fixtures/test.js";

// The canary gate on recorded data: the rollout the lab ran through the engine's real flow on real
// replicated servers while it recorded them (lab/recordings/*.rollouts.json, loaded into the store by
// `npm start`). Every expectation is read from that file: the gates the engine decided (pre-wave, the
// step verified from the exporter's read-back, the bake judged against the untouched control), not
// written into this spec. The recorded bake is inconclusive; the spec shows that verdict and the
// operator's acceptance, which is how that rollout completed.
const file = JSON.parse(
  readFileSync(join(repoRoot(), "lab", "recordings", "mariadb-10.11-fleet.rollouts.json"), "utf8"),
) as { rollouts: { id: string; state: string; document: unknown }[] };
const row = file.rollouts.find((r) => r.state === "completed");
if (!row) throw new Error("the lab recording holds no completed rollout");
const recorded = parseRolloutState(row.document);
const wave = recorded.waves[0]!;
const gates = (kind: string) =>
  recorded.events.filter((e): e is RolloutEvent & { gate: NonNullable<RolloutEvent["gate"]> } =>
    Boolean(e.gate && e.gate.gate === kind && e.gate.wave === 0),
  );

test.describe("the recorded demo's canary wave", () => {
  test.use({ target: "demo" });

  test("shows the engine's gates on the recorded canary: pre-wave, the verified step, the bake vs its control", async ({
    page,
  }) => {
    expect(wave.kind).toBe("canary");
    expect(wave.controls.length).toBeGreaterThan(0);
    const rp = new RolloutPage(page);
    await rp.goto(recorded.id);
    await expect(rp.status).toHaveAttribute("data-status", recorded.status);
    await expect(rp.wave(0)).toContainText(`control (left untouched): ${wave.controls.join(", ")}`);

    for (const kind of ["pre-wave", "step", "bake"] as const) {
      const decided = gates(kind);
      expect(decided.length, `${kind} gates in the recording`).toBeGreaterThan(0);
      const shown = rp.gate(0, kind);
      await expect(shown).toHaveCount(decided.length);
      for (const [i, e] of decided.entries()) {
        await expect(shown.nth(i)).toHaveAttribute("data-outcome", e.gate.outcome);
        await expect(shown.nth(i).locator("summary")).toContainText(e.gate.summary.slice(0, 60));
      }
    }
    // The pre-wave gate looked at the canary's and the control's replication.
    await rp.gate(0, "pre-wave").first().locator("summary").click();
    for (const id of [...wave.instances, ...wave.controls])
      await expect(rp.gate(0, "pre-wave").first().getByRole("table")).toContainText(id);
    // The step was verified from what the exporter read back after the restart.
    const step = rp.gate(0, "step").first();
    await step.locator("summary").click();
    const readBack = gates("step")[0]!.gate.checks.find((c) => c.outcome === "pass")!;
    await expect(step.getByRole("table")).toContainText(readBack.observed);

    // The bake judged against the control, metric by metric, with the verdict it reached.
    const last = gates("bake").at(-1)!.gate;
    const table = page.getByTestId("comparison-wave-0");
    for (const j of last.judgement ?? []) {
      const r = table.locator(`tr[data-metric="${j.metric}"]`);
      await expect(r).toContainText(j.verdict);
      if (j.ratio !== null) await expect(r).toContainText("vs control");
    }
    // Inconclusive is not a pass: the wave waited for a person, whose acceptance is in the audit.
    if (last.outcome !== "pass") {
      const accepted = recorded.events.find((e) => e.type === "wave-passed" && e.actor.kind === "operator");
      expect(accepted, "an inconclusive bake completes only by a person's acceptance").toBeDefined();
      await expect(rp.timeline).toContainText(accepted!.message.slice(0, 60));
      await expect(rp.timeline).toContainText("Paused for a human");
    }
  });

  test("its change report states the recorded verdict", async ({ page }) => {
    const report = new ReportPage(page);
    await report.goto(recorded.id);
    await expect(report.report.getByTestId("report-verdict")).toContainText("Verdict:");
    for (const j of gates("bake").at(-1)!.gate.judgement ?? [])
      await expect(report.report).toContainText(j.metric);
  });
});
