import { Command, CommanderError } from "commander";
import { COMMANDS } from "./commands/index.js";
import { CliError, EXIT } from "./errors.js";
import { type Io, processIo } from "./io.js";
import { VERSION } from "./version.js";

export { VERSION };

export function buildProgram(io: Io = processIo): Command {
  const program = new Command("untorn")
    .description(
      "Doublewrite buffer profile, advice, before/after comparison and benchmark for MySQL / MariaDB / Percona fleets.",
    )
    .version(VERSION)
    .option(
      "--replay <file>",
      "read a replay file written by `untorn record` instead of Prometheus (fleet, instance)",
    )
    .showHelpAfterError("(run with --help for usage)")
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .exitOverride();
  for (const register of COMMANDS) register(program, io);
  return program;
}

/** Runs the CLI and returns the exit code instead of exiting (tests call this directly). */
export async function run(argv: readonly string[], io: Io = processIo): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync([...argv], { from: "user" });
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end here too, with exit code 0
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (err instanceof CliError) {
      io.err(`untorn: ${err.message}\n`);
      return err.exitCode;
    }
    io.err(`untorn: unexpected error: ${(err as Error).stack ?? String(err)}\n`);
    return EXIT.failure;
  }
}
