/** `untorn rollout command <id>`: any command as JSON, for scripts. */
import type { Command } from "commander";
import { type Io, readJsonFile } from "../../io.js";
import { type CommonFlags, commonOptions, expectedVersionOf, parseId } from "./options.js";
import { sendCommand } from "./send.js";

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
      await sendCommand(io, flags, id, cmd, expectedVersionOf(flags));
    });
}
