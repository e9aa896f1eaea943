/** The rollout subcommands' shared flags, and the parsing of their values into the runner's inputs. */
import { randomUUID } from "node:crypto";
import type { Command } from "commander";
import { z } from "zod";
import { CliError, EXIT } from "../../errors.js";
import type { Io } from "../../io.js";
import { parseAt } from "../../source.js";
import { DEFAULT_DATA_DIR, type StoreFlags } from "../../store-open.js";

export type { StoreFlags };
export interface CommonFlags extends StoreFlags {
  actor?: string;
  key?: string;
  expectedVersion?: string;
  now?: string;
  json?: boolean;
}

/** The store, actor and time flags every rollout subcommand but `plan` shares. */
export function commonOptions(cmd: Command, write = true): Command {
  cmd
    .option("--data-dir <dir>", `embedded store directory (default: $UNTORN_DATA_DIR or ${DEFAULT_DATA_DIR})`)
    .option("--database-url <url>", "PostgreSQL store instead of the data directory (default: $DATABASE_URL)")
    .option("--json", "print JSON");
  if (write)
    cmd
      .option("--actor <name>", "who does this, kept in the audit (default: $UNTORN_ACTOR, else $USER)")
      .option(
        "--key <key>",
        "idempotency key: the same key again gives the stored outcome instead of acting twice (default: a new random key)",
      )
      .option(
        "--expected-version <n>",
        "refuse with exit 5 if the rollout changed since you saw this version (shown by `show`)",
      )
      .option("--now <time>", "the command's time: RFC 3339 or Unix seconds (default: now; for replays)");
  return cmd;
}

export const EnvSchema = z.object({
  UNTORN_ACTOR: z.string().min(1).optional().catch(undefined),
  USER: z.string().min(1).optional().catch(undefined),
});

export function parseInt10(text: string, flag: string, min: number, max: number): number {
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max)
    throw new CliError(
      `${flag} ${JSON.stringify(text)}: expected a whole number from ${min} to ${max}`,
      EXIT.usage,
    );
  return Number(text);
}

/** --expected-version as runCommand's option (none without the flag). */
export function expectedVersionOf(flags: { expectedVersion?: string }): { expectedVersion?: number } {
  return flags.expectedVersion === undefined
    ? {}
    : { expectedVersion: parseInt10(flags.expectedVersion, "--expected-version", 1, 2 ** 31 - 1) };
}

const ID = z.uuid();
export function parseId(text: string): string {
  if (!ID.safeParse(text).success)
    throw new CliError(
      `rollout id ${JSON.stringify(text)}: expected a UUID as \`untorn rollout list\` shows it`,
      EXIT.usage,
    );
  return text.toLowerCase();
}

const KEY = /^[\x21-\x7e]{8,200}$/;
export function parseKey(text: string | undefined): string {
  if (text === undefined) return randomUUID();
  if (!KEY.test(text))
    throw new CliError(
      `--key ${JSON.stringify(text)}: expected 8 to 200 printable ASCII characters without spaces`,
      EXIT.usage,
    );
  return text;
}

export function actorOf(flags: CommonFlags, io: Io): { id: string; kind: "operator" } {
  const env = EnvSchema.parse(io.env);
  const id = (flags.actor ?? env.UNTORN_ACTOR ?? env.USER ?? "").trim();
  if (!id || id.length > 256)
    throw new CliError(
      flags.actor !== undefined
        ? `--actor ${JSON.stringify(flags.actor)}: expected a name of 1 to 256 characters`
        : "who is acting? pass --actor <name> or set UNTORN_ACTOR",
      EXIT.usage,
    );
  return { id, kind: "operator" };
}

/** parseAt, with the flag's own name in the error. */
export function parseTime(text: string, flag: string): number {
  try {
    return parseAt(text);
  } catch (e) {
    if (e instanceof CliError) throw new CliError(e.message.replace(/^--at/, flag), e.exitCode);
    throw e;
  }
}

export function clockOf(flags: { now?: string }): () => number {
  if (flags.now === undefined) return () => Date.now() / 1000;
  const t = parseTime(flags.now, "--now");
  return () => t;
}
