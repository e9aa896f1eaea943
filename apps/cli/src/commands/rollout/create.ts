/** `untorn rollout create`: plan and store a rollout. */
import { createStoredRollout } from "@untorn/rollout-runner/runner";
import type { Command } from "commander";
import { CliError, EXIT } from "../../errors.js";
import type { Io } from "../../io.js";
import { metadataOption } from "../../metadata.js";
import { sourceOptions } from "../../source.js";
import { actorOf, type CommonFlags, clockOf, commonOptions, parseKey } from "./options.js";
import { nextText, summary } from "./output.js";
import { type PlanFlags, planInput } from "./plan-input.js";
import { depsOf, withStore } from "./store.js";

/** `rollout create`: plan and store a rollout. */
export function registerCreate(rollout: Command, io: Io): void {
  commonOptions(
    metadataOption(
      sourceOptions(
        rollout
          .command("create")
          .description(
            "Plan and store a rollout; refused (exit 5) when a --targets instance can't take the change, e.g. its safety gate is not verified.",
          ),
      ),
    ),
  )
    .requiredOption("--title <text>", "what the rollout is for, e.g. the change ticket")
    .option("--change <json|@file|kind>", "the change, e.g. doublewrite-off")
    .option("--targets <list>", "comma-separated instances to change (default: every eligible instance)")
    .option("--policy <file>", "rollout policy JSON")
    .option("--input <file>", "a whole plan input (rollout-plan-input.schema.json)")
    .action(async (flags: PlanFlags & CommonFlags & { title: string }, cmd: Command) => {
      const all = { ...cmd.optsWithGlobals(), ...flags } as PlanFlags & CommonFlags & { title: string };
      const title = all.title.trim();
      if (!title || title.length > 200)
        throw new CliError("--title: expected 1 to 200 characters", EXIT.usage);
      const key = parseKey(all.key);
      const actor = actorOf(all, io);
      const { input, at, warnings } = await planInput(all, io);
      // On a recording, "now" is its clock (the facts' time), unless --now says otherwise.
      const clock = all.now === undefined && all.replay !== undefined ? { ...all, now: String(at) } : all;
      await withStore(all, io, async (store) => {
        const r = await createStoredRollout(depsOf(store, clock, io), {
          type: "create",
          key,
          actor,
          title,
          input,
        });
        const s = r.stored;
        if (all.json)
          io.out(
            `${JSON.stringify({ id: s.state.id, replayed: r.replayed, version: s.version, state: s.state }, null, 2)}\n`,
          );
        else {
          if (r.replayed) io.out("already created with this --key: nothing changed\n");
          io.out(summary(s));
          io.out(nextText(s.state, clockOf(all)()));
        }
      });
      for (const w of warnings) io.err(`warning: ${w}\n`);
    });
}
