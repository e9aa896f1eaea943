import { Command, CommanderError } from "commander";
import { COMMANDS } from "./commands/index.js";
import { CliError, EXIT } from "./errors.js";
import { type Io, processIo } from "./io.js";
import { VERSION } from "./version.js";

export { VERSION };

export function buildProgram(io: Io = processIo): Command {
  const program = new Command("untorn")
    .description(
      "Doublewrite buffer profile, advice, before/after comparison and staged rollouts for MySQL / MariaDB / Percona fleets.",
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
  return runProgram(buildProgram(io), argv, io);
}

/**
 * Parses `argv` with `program` and returns the exit code: usage errors, CliError's code with its
 * message, anything else as a failure with its stack. Shared with other commands built on this CLI's
 * plumbing (untorn-bench).
 */
export async function runProgram(program: Command, argv: readonly string[], io: Io): Promise<number> {
  try {
    await program.parseAsync([...argv], { from: "user" });
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end here too, with exit code 0
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (err instanceof CliError) {
      io.err(`${program.name()}: ${err.message}\n`);
      return err.exitCode;
    }
    io.err(`${program.name()}: unexpected error: ${(err as Error).stack ?? String(err)}\n`);
    return EXIT.failure;
  }
}
