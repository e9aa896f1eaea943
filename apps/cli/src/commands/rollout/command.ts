/** `untorn rollout command <id>`: any command as JSON, for scripts. */
import { runCommand } from "@untorn/rollout-runner/runner";
import type { Command } from "commander";
import { type Io, readJsonFile } from "../../io.js";
import { type CommonFlags, commonOptions, parseId, parseInt10 } from "./options.js";
import { printOutcome } from "./output.js";
import { depsOf, withStore } from "./store.js";

/** `rollout command <id>`: one command as JSON. */
export function registerCommand(rollout: Command, io: Io): void {
  commonOptions(
    rollout
      .command("command <id>")
      .description(
        "Send any command as JSON (rollout-command.schema.json): what the console sends, for scripts.",
      ),
    false,
  )
    .requiredOption("--input <file>", "the command JSON, or - for stdin")
    .option("--expected-version <n>", "refuse with exit 5 if the rollout changed since this version")
    .option("--now <time>", "the command's time (default: now)")
    .action(async (idText: string, flags: CommonFlags & { input: string }) => {
      const id = parseId(idText);
      const { commandSchema } = await import("@untorn/rollout/commands");
      const cmd = await readJsonFile(
        flags.input,
        commandSchema,
        "rollout command (rollout-command.schema.json)",
      );
      const expectedVersion =
        flags.expectedVersion === undefined
          ? undefined
          : parseInt10(flags.expectedVersion, "--expected-version", 1, 2 ** 31 - 1);
      await withStore(flags, io, async (store) => {
        const o = await runCommand(
          depsOf(store, flags, io),
          id,
          cmd,
          expectedVersion === undefined ? {} : { expectedVersion },
        );
        printOutcome(io, flags.json, o, id);
      });
    });
}
