import { randomUUID } from "node:crypto";
import { type InstanceState, permittedCommands, type RolloutState } from "@untorn/rollout/state";
import { utc } from "../../lib/format.js";
import { markRevertDone } from "../../server/rollouts/rollout-actions.js";
import { CopyButton } from "../copy-button.js";
import { CommandForm } from "./command-form.js";
import { StepDone } from "./step-done.js";

const LANG: Record<string, string> = { ini: "my.cnf", sql: "SQL", shell: "shell" };

const INSTANCE_TEXT: Record<InstanceState["status"], string> = {
  pending: "step to do",
  applying: "hook running",
  applied: "done, waiting for the read-back",
  verified: "verified from metrics",
  failed: "read-back did not match",
  reverting: "revert to do",
  "revert-applied": "reverted, waiting for the read-back",
  reverted: "reverted and verified",
};

function readBackText(rb: Record<string, unknown> | null): string {
  if (!rb) return "nothing read back yet";
  const parts: string[] = [];
  if (rb.doublewriteMode !== undefined) parts.push(`doublewrite mode ${String(rb.doublewriteMode)}`);
  if (rb.doublewritePages !== undefined && rb.doublewritePages !== null)
    parts.push(`doublewrite pages ${String(rb.doublewritePages)}`);
  if (rb.doublewritePagesPerSecond !== undefined && rb.doublewritePagesPerSecond !== null)
    parts.push(`doublewrite writes ${Number(rb.doublewritePagesPerSecond).toFixed(2)} pages/s`);
  if (rb.configInfo && typeof rb.configInfo === "object")
    for (const [k, v] of Object.entries(rb.configInfo as Record<string, unknown>))
      parts.push(`${k}=${String(v)}`);
  if (rb.up === false) parts.push("server down");
  return parts.length ? parts.join(", ") : JSON.stringify(rb);
}

function expectText(e: RolloutState["plan"]["steps"][number]["expect"]): string {
  const parts: string[] = [];
  if (e.doublewriteMode) parts.push(`doublewrite mode ${e.doublewriteMode}`);
  if (e.doublewritePages !== undefined) parts.push(`doublewrite pages ${e.doublewritePages}`);
  if (e.doublewriteFlat) parts.push("doublewrite writes flat at 0");
  for (const [k, v] of Object.entries(e.configInfo ?? {})) parts.push(`${k}=${v}`);
  if (e.gateVerified) parts.push("safety gate verified");
  if (e.restart) parts.push("a restart (uptime drops)");
  return parts.join(", ") || "–";
}

/**
 * The current wave: per instance the exact steps for its platform, "Mark step done" for an operator
 * while the step is to do, and what the exporter read back.
 */
interface StepsProps {
  state: RolloutState;
  version: number;
  canOperate: boolean;
  /** The data source's "now" (Unix seconds). */
  now: number;
}

export function CurrentWaveSteps({ state: s, version, canOperate, now }: StepsProps) {
  const may = permittedCommands(s, now);
  const wave = s.currentWave;
  const w = wave === null ? undefined : s.waves[wave];
  if (!w) return <p className="subtle">No wave is current.</p>;
  return (
    <>
      {w.instances.map((id) => {
        const step = s.plan.steps.find((x) => x.instance === id);
        const inst = s.instances.find((x) => x.instance === id);
        if (!step || !inst) return null;
        return (
          <article key={id} className="card step" data-instance={id} aria-labelledby={`step-${id}`}>
            <h3 id={`step-${id}`}>
              {id} <span className="subtle">({step.server})</span>
            </h3>
            <p>
              <strong>{step.title}</strong>: <code>{step.variable}</code> {step.current ?? "(unknown)"} →{" "}
              {step.target}, {step.restart ? "restart needed" : "no restart"}
              {step.switchover ? ", after a switchover" : ""}. State: {INSTANCE_TEXT[inst.status]}
              {inst.appliedAt ? ` (marked done ${utc(inst.appliedAt)} by ${inst.appliedBy?.id ?? "–"})` : ""}.
            </p>
            {/* Offered only when the engine takes it (while the wave applies: its pre-wave gate passed). */}
            {wave !== null && may.stepDone.includes(id) && (
              <StepDone id={s.id} version={version} instance={id} wave={wave} canOperate={canOperate} />
            )}
            {inst.status === "pending" && w.phase === "pending" && (
              <p className="subtle" data-testid={`step-waits-${id}`}>
                {w.approvedAt === null
                  ? `Carry out this step once wave ${w.index} is approved and its pre-wave gate has passed.`
                  : `Carry out this step once wave ${w.index}'s pre-wave gate has passed (the reconciler checks it).`}
              </p>
            )}
            {step.removesTornPageProtection && (
              <p className="banner banner-warn">
                This step removes torn-page protection: it is planned only because the safety gate was
                verified.
              </p>
            )}
            <ol>
              {step.steps.map((t) => (
                <li key={t}>{t}</li>
              ))}
            </ol>
            {step.snippets.map((sn) => (
              <div key={sn.text} className="snippet">
                <div className="snippet-bar">
                  <span>{LANG[sn.language] ?? sn.language}</span>
                  <CopyButton text={sn.text} label={`Copy ${LANG[sn.language] ?? sn.language} for ${id}`} />
                </div>
                <pre>
                  <code>{sn.text}</code>
                </pre>
              </div>
            ))}
            <p className="subtle" data-testid={`readback-${id}`}>
              Verification read-back: expected {expectText(step.expect)}; seen{" "}
              {readBackText(inst.lastReadBack)}
              {inst.lastReadBackAt ? ` at ${utc(inst.lastReadBackAt)}` : ""} ({inst.matches} matching in a row
              of {s.policy.verifyConsecutive} needed).
            </p>
          </article>
        );
      })}
    </>
  );
}

/**
 * While the rollout reverts: per changed instance its revert steps, "Mark revert done" for an operator
 * while the engine takes it (permittedCommands), and the read-back once it is done.
 */
export function RevertSteps({ state: s, version, canOperate, now }: StepsProps) {
  const may = permittedCommands(s, now);
  const changed = s.instances.filter((i) => i.status === "reverting" || i.status === "revert-applied");
  if (changed.length === 0) return <p className="subtle">No instance is being reverted.</p>;
  return (
    <>
      {changed.map((inst) => {
        const step = s.plan.steps.find((x) => x.instance === inst.instance);
        if (!step) return null;
        return (
          <article
            key={inst.instance}
            className="card step"
            data-instance={inst.instance}
            aria-labelledby={`revert-${inst.instance}`}
          >
            <h3 id={`revert-${inst.instance}`}>
              {inst.instance} <span className="subtle">({step.server})</span>
            </h3>
            <p>
              Back to <code>{step.variable}</code> {step.revert.previousValue ?? "(unknown)"},{" "}
              {step.revert.restart ? "restart needed" : "no restart"}. State: {INSTANCE_TEXT[inst.status]}
              {inst.revertAppliedAt ? ` (marked done ${utc(inst.revertAppliedAt)})` : ""}.
            </p>
            {canOperate && may.revertDone.includes(inst.instance) && (
              <CommandForm
                action={markRevertDone}
                name={`revert-${inst.instance.replace(/[^A-Za-z0-9_-]/g, "_")}`}
                hidden={{ id: s.id, version: String(version), key: randomUUID(), instance: inst.instance }}
                fields={[{ name: "note", label: "Note (optional)" }]}
                submit="Mark revert done"
                submitLabel={`Mark revert done on ${inst.instance}`}
              />
            )}
            <ol>
              {step.revert.steps.map((t) => (
                <li key={t}>{t}</li>
              ))}
            </ol>
            {step.revert.snippets.map((x) => (
              <pre key={x.text}>
                <code>{x.text}</code>
              </pre>
            ))}
          </article>
        );
      })}
    </>
  );
}
