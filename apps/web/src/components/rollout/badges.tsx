import type { GateOutcome } from "@untorn/rollout/events";
import type { RolloutStatus } from "@untorn/rollout/state";
import { OUTCOME_TEXT, OUTCOME_TONE, STATUS_TEXT, STATUS_TONE } from "../../lib/rollout-view.js";

const TONE_CLASS = {
  info: "badge-info",
  warn: "badge-warn",
  bad: "badge-bad",
  good: "badge-ok",
  outline: "badge-outline",
};

export function RolloutStatusBadge({ status, testId }: { status: RolloutStatus; testId?: string }) {
  return (
    <span className={`badge ${TONE_CLASS[STATUS_TONE[status]]}`} data-testid={testId} data-status={status}>
      {STATUS_TEXT[status]}
    </span>
  );
}

export function OutcomeBadge({ outcome }: { outcome: GateOutcome }) {
  return (
    <span className={`badge ${TONE_CLASS[OUTCOME_TONE[outcome]]}`} data-outcome={outcome}>
      {OUTCOME_TEXT[outcome]}
    </span>
  );
}
