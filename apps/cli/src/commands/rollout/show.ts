/** `untorn rollout show <id>`: one stored rollout and what happens next. */
import { nextActions } from "@untorn/rollout/state";
import { getRollout } from "@untorn/rollout-runner/runner";
import type { Command } from "commander";
import type { Io } from "../../io.js";
import { commonOptions, parseId, type StoreFlags } from "./options.js";
import { nextText, summary } from "./output.js";
import { withStore } from "./store.js";

/** `rollout show <id>`. */
export function registerShow(rollout: Command, io: Io): void {
  commonOptions(
    rollout.command("show <id>").description("One rollout: waves, instances, what happens next."),
    false,
  )
    .option("--events", "list the audit events too")
    .action(async (idText: string, flags: StoreFlags & { json?: boolean; events?: boolean }) => {
      const id = parseId(idText);
      await withStore(flags, io, async (store) => {
        const s = await getRollout({ store }, id);
        const now = Date.now() / 1000;
        if (flags.json) {
          io.out(
            `${JSON.stringify({ version: s.version, updatedAt: s.updatedAt.toISOString(), updatedBy: s.updatedBy, state: s.state, next: nextActions(s.state, now) }, null, 2)}\n`,
          );
          return;
        }
        io.out(summary(s));
        io.out(nextText(s.state, now));
        if (flags.events)
          for (const e of s.state.events)
            io.out(
              `${new Date(e.at * 1000).toISOString()}  ${e.actor.id.padEnd(12)} ${e.type}: ${e.message}\n`,
            );
      });
    });
}
