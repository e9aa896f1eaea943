import type { Command } from "commander";
import type { Io } from "../io.js";
import type { CommandName } from "./descriptions.js";

/** A subcommand module: adds itself to the program. */
export type Register = (program: Command, io: Io) => void;

/**
 * Every subcommand, in the order --help lists them, loaded only when it runs (or its own --help is
 * asked): `untorn --help` loads none. Add one line per new command module.
 */
export const COMMANDS: readonly { readonly name: CommandName; load(): Promise<Register> }[] = [
  { name: "fleet", load: async () => (await import("./fleet.js")).registerFleet },
  { name: "instance", load: async () => (await import("./instance.js")).registerInstance },
  { name: "advise", load: async () => (await import("./advise.js")).registerAdvise },
  { name: "record", load: async () => (await import("./record.js")).registerRecord },
  { name: "compare", load: async () => (await import("./compare.js")).registerCompare },
  { name: "rollout", load: async () => (await import("./rollout/index.js")).registerRollout },
  { name: "audit", load: async () => (await import("./audit.js")).registerAudit },
];
