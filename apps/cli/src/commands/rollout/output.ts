/** Text for a stored rollout and what happens next, shared by `create` and `show`. */
import { nextActions, type RolloutState } from "@untorn/rollout/state";
import type { StoredRollout } from "@untorn/rollout-runner/runner";

export function summary(s: StoredRollout): string {
  const st = s.state;
  const lines = [
    `${st.id}  ${st.title}`,
    `status ${st.status}${st.pause ? ` (${st.pause.reason}: ${st.pause.message})` : ""}, version ${s.version}, last change by ${s.updatedBy} at ${s.updatedAt.toISOString()}`,
  ];
  for (const w of st.waves)
    lines.push(
      `  wave ${w.index} ${w.kind} ${w.phase}: ${w.instances
        .map((i) => `${i} ${st.instances.find((x) => x.instance === i)?.status ?? "?"}`)
        .join(", ")}${w.controls.length ? `; control ${w.controls.join(", ")}` : ""}`,
    );
  return `${lines.join("\n")}\n`;
}

export function nextText(state: RolloutState, now: number): string {
  const n = nextActions(state, now);
  const lines = n.human.map((h) => `next: ${h.message}`);
  if (n.wakeAt !== null)
    lines.push(`the reconciler moves it next at ${new Date(n.wakeAt * 1000).toISOString()}`);
  return lines.length ? `${lines.join("\n")}\n` : "";
}
