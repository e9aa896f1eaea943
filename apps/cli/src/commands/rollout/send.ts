/** One command to a stored rollout, and its outcome printed: what the verbs and `command` share. */
import type { CommandInput } from "@untorn/rollout/commands";
import { type CommandOutcome, runCommand } from "@untorn/rollout-runner/runner";
import { CliError, EXIT } from "../../errors.js";
import type { Io } from "../../io.js";
import type { CommonFlags } from "./options.js";
import { depsOf, withStore } from "./store.js";

export async function sendCommand(
  io: Io,
  flags: CommonFlags,
  id: string,
  cmd: CommandInput,
  options: { expectedVersion?: number },
): Promise<void> {
  await withStore(flags, io, async (store) => {
    const o = await runCommand(depsOf(store, flags, io), id, cmd, options);
    printOutcome(io, flags.json, o, id);
  });
}

function printOutcome(io: Io, json: boolean | undefined, o: CommandOutcome, id: string): void {
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
