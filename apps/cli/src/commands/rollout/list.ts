/** `untorn rollout list`: the stored rollouts, newest first. */
import { ROLLOUT_STATUSES } from "@untorn/rollout/state";
import { listRollouts } from "@untorn/rollout-runner/runner";
import type { Command } from "commander";
import { CliError, EXIT } from "../../errors.js";
import type { Io } from "../../io.js";
import { commonOptions, parseInt10, type StoreFlags } from "./options.js";
import { withStore } from "./store.js";

/** `rollout list`. */
export function registerList(rollout: Command, io: Io): void {
  commonOptions(rollout.command("list").description("Rollouts, newest first."), false)
    .option("--status <list>", `comma-separated statuses: ${ROLLOUT_STATUSES.join(", ")}`)
    .option("--limit <n>", "at most this many (1-1000, default 100)")
    .action(async (flags: StoreFlags & { status?: string; limit?: string; json?: boolean }) => {
      const statuses = flags.status?.split(",").map((s) => s.trim());
      const bad = statuses?.filter((s) => !(ROLLOUT_STATUSES as readonly string[]).includes(s)) ?? [];
      if (bad.length)
        throw new CliError(`--status ${bad.join(", ")}: expected ${ROLLOUT_STATUSES.join(", ")}`, EXIT.usage);
      const limit = flags.limit === undefined ? 100 : parseInt10(flags.limit, "--limit", 1, 1000);
      await withStore(flags, io, async (store) => {
        const list = await listRollouts({ store }, { ...(statuses ? { statuses } : {}), limit });
        if (flags.json) {
          io.out(
            `${JSON.stringify(
              list.map((s) => ({
                id: s.state.id,
                title: s.state.title,
                status: s.state.status,
                version: s.version,
                updatedAt: s.updatedAt.toISOString(),
                updatedBy: s.updatedBy,
                currentWave: s.state.currentWave,
                waves: s.state.waves.length,
              })),
              null,
              2,
            )}\n`,
          );
          return;
        }
        if (list.length === 0) io.out("no rollouts\n");
        for (const s of list)
          io.out(
            `${s.state.id}  ${s.state.status.padEnd(9)}  wave ${s.state.currentWave ?? "-"}/${s.state.waves.length}  v${s.version}  ${s.state.title}\n`,
          );
      });
    });
}
