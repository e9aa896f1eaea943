import { Command, CommanderError } from "commander";
import { DESCRIPTIONS } from "./commands/descriptions.js";
import { COMMANDS } from "./commands/index.js";
import { CliError, EXIT } from "./errors.js";
import { type Io, processIo } from "./io.js";
import { VERSION } from "./version.js";

export { VERSION };

function baseProgram(io: Io): Command {
  return new Command("untorn")
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
}

/** The subcommand argv asks for (`untorn [--replay f] <command>`, `untorn help <command>`), if any. */
export function commandNameOf(argv: readonly string[]): string | null {
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--replay") i++;
    else if (!a.startsWith("-")) words.push(a);
    if (words.length === 2) break;
  }
  return words[0] === "help" ? (words[1] ?? null) : (words[0] ?? null);
}

/**
 * The program with every subcommand registered in full (tests, and anything that walks the commands).
 */
export async function buildProgram(io: Io = processIo): Promise<Command> {
  const program = baseProgram(io);
  for (const c of COMMANDS) (await c.load())(program, io);
  return program;
}

/**
 * The program for one run: the subcommand argv names is loaded and registered in full, the others only
 * by name and description, so `untorn --help` (and a typo) load no command module.
 */
export async function programFor(argv: readonly string[], io: Io = processIo): Promise<Command> {
  const program = baseProgram(io);
  const wanted = commandNameOf(argv);
  for (const c of COMMANDS) {
    if (c.name === wanted) (await c.load())(program, io);
    else program.command(c.name).description(DESCRIPTIONS[c.name]);
  }
  return program;
}

/** Runs the CLI and returns the exit code instead of exiting (tests call this directly). */
export async function run(argv: readonly string[], io: Io = processIo): Promise<number> {
  return runProgram(await programFor(argv, io), argv, io);
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
