/** The operator's verbs (`untorn rollout approve <id>`, `pause`, ...): one command each to a rollout. */
import type { CommandInput } from "@untorn/rollout/commands";
import type { Command } from "commander";
import { CliError, EXIT } from "../../errors.js";
import type { Io } from "../../io.js";
import {
  actorOf,
  type CommonFlags,
  clockOf,
  commonOptions,
  expectedVersionOf,
  parseId,
  parseInt10,
  parseKey,
  parseTime,
} from "./options.js";
import { sendCommand } from "./send.js";

type Build = (
  f: CommonFlags & Record<string, string | boolean | undefined>,
  key: string,
  actor: { id: string; kind: "operator" },
  clock: () => number,
) => CommandInput;

/** A subcommand that sends one command to a stored rollout. */
function commandVerb(
  parent: Command,
  io: Io,
  name: string,
  description: string,
  setup: (c: Command) => Command,
  build: Build,
): void {
  commonOptions(setup(parent.command(`${name} <id>`).description(description))).action(
    async (idText: string, flags: CommonFlags & Record<string, string | boolean | undefined>) => {
      const id = parseId(idText);
      const key = parseKey(flags.key);
      const actor = actorOf(flags, io);
      const version = expectedVersionOf(flags);
      const clock = clockOf(flags);
      const cmd = build(flags, key, actor, clock);
      await sendCommand(io, flags, id, cmd, version);
    },
  );
}

const reasonOf = (flags: Record<string, string | boolean | undefined>, verb: string): string => {
  const r = typeof flags["reason"] === "string" ? flags["reason"].trim() : "";
  if (!r || r.length > 4000)
    throw new CliError(`${verb} needs --reason <text> (1 to 4000 characters), kept in the audit`, EXIT.usage);
  return r;
};
const noteOf = (flags: Record<string, string | boolean | undefined>) => {
  const n = flags["note"];
  if (typeof n !== "string") return {};
  if (n.length > 4000) throw new CliError("--note: at most 4000 characters", EXIT.usage);
  return { note: n };
};

/** attest-backup, approve, step (--revert: revert-done), pause, resume, abort, revert. */
export function registerVerbs(rollout: Command, io: Io): void {
  commandVerb(
    rollout,
    io,
    "attest-backup",
    "Attest a backup taken at --taken-at (the pre-wave gate needs a recent one).",
    (c) =>
      c
        .requiredOption("--taken-at <time>", "when the backup was taken: RFC 3339 or Unix seconds")
        .option("--note <text>", "where it is"),
    (f, key, actor) => ({
      type: "attest-backup",
      key,
      actor,
      takenAt: parseTime(String(f["takenAt"]), "--taken-at"),
      ...noteOf(f),
    }),
  );
  commandVerb(
    rollout,
    io,
    "approve",
    "Open a pending wave, or accept an inconclusive wave's result.",
    (c) =>
      c.requiredOption("--wave <n>", "wave number (0 = canary)").option("--note <text>", "kept in the audit"),
    (f, key, actor) => ({
      type: "approve",
      key,
      actor,
      wave: parseInt10(String(f["wave"]), "--wave", 0, 10_000),
      ...noteOf(f),
    }),
  );
  commandVerb(
    rollout,
    io,
    "step",
    "Mark an instance's step done (you applied the change; now is the comparison's change point), or with --revert its revert.",
    (c) =>
      c
        .requiredOption("--instance <label>", "the Prometheus instance label")
        .option("--revert", "the instance's revert step was done, not its change")
        .option("--note <text>", "kept in the audit"),
    (f, key, actor) => {
      const instance = String(f["instance"]).trim();
      if (!instance || instance.length > 256)
        throw new CliError("--instance: expected an instance label", EXIT.usage);
      return { type: f["revert"] ? "revert-done" : "step-done", key, actor, instance, ...noteOf(f) };
    },
  );
  commandVerb(
    rollout,
    io,
    "pause",
    "Pause: no new wave or step starts; read-backs are still recorded.",
    (c) => c.option("--reason <text>", "why (required)"),
    (f, key, actor) => ({ type: "pause", key, actor, reason: reasonOf(f, "pause") }),
  );
  commandVerb(
    rollout,
    io,
    "resume",
    "Resume a paused rollout (an inconclusive wave is judged again).",
    (c) => c.option("--note <text>", "kept in the audit"),
    (f, key, actor) => ({ type: "resume", key, actor, ...noteOf(f) }),
  );
  commandVerb(
    rollout,
    io,
    "abort",
    "Stop the rollout where it stands; changed instances keep the change.",
    (c) => c.option("--reason <text>", "why (required)"),
    (f, key, actor) => ({ type: "abort", key, actor, reason: reasonOf(f, "abort") }),
  );
  commandVerb(
    rollout,
    io,
    "revert",
    "Revert every changed instance to its previous value (then `step --revert` each).",
    (c) => c.option("--reason <text>", "why (required)"),
    (f, key, actor) => ({ type: "revert", key, actor, reason: reasonOf(f, "revert") }),
  );
}
