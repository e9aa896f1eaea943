/** Text for a stored rollout and a command's outcome, shared by the subcommands that print them. */
import { nextActions, type RolloutState } from "@untorn/rollout/state";
import type { CommandOutcome, StoredRollout } from "@untorn/rollout-runner/runner";
import { CliError, EXIT } from "../../errors.js";
import type { Io } from "../../io.js";

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

export function printOutcome(io: Io, json: boolean | undefined, o: CommandOutcome, id: string): void {
  if (json) {
    io.out(
      `${JSON.stringify({ ok: o.ok, replayed: o.replayed, refusal: o.refusal, id, status: o.state.status, version: o.version, events: o.events }, null, 2)}\n`,
    );
  } else {
    if (o.replayed) io.out("already done with this --key: nothing changed\n");
    for (const e of o.events) if (e.type !== "command-refused") io.out(`${e.type}: ${e.message}\n`);
    io.out(`rollout ${id}: ${o.state.status}, version ${o.version}\n`);
  }
  if (!o.ok && o.refusal)
    throw new CliError(
      `rollout ${id} refused the command (${o.refusal.code}): ${o.refusal.message}`,
      EXIT.refused,
    );
}
