/**
 * "Mark step done" for one instance of the current wave: the operator carried out the step; the
 * server's time becomes the comparison's change point. Only an operator sees it; the action checks.
 */
import { randomUUID } from "node:crypto";
import { markStepDone } from "../../server/rollouts/rollout-actions.js";
import { CommandForm } from "./command-form.js";

export function StepDone({
  id,
  version,
  instance,
  wave,
  canOperate,
}: {
  id: string;
  version: number;
  instance: string;
  wave: number;
  canOperate: boolean;
}) {
  if (!canOperate) return null;
  return (
    <CommandForm
      action={markStepDone}
      name={`step-${wave}-${instance.replace(/[^A-Za-z0-9_-]/g, "_")}`}
      hidden={{ id, version: String(version), key: randomUUID(), instance }}
      submit="Mark step done"
      submitLabel={`Mark step done on ${instance}`}
    />
  );
}
