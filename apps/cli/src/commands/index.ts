import type { Command } from "commander";
import type { Io } from "../io.js";
import { registerAdvise } from "./advise.js";
import { registerAudit } from "./audit.js";
import { registerCompare } from "./compare.js";
import { registerFleet } from "./fleet.js";
import { registerInstance } from "./instance.js";
import { registerRecord } from "./record.js";
import { registerRollout } from "./rollout.js";

/** A subcommand module: adds itself to the program. */
export type Register = (program: Command, io: Io) => void;

/** Every subcommand, in the order --help lists them. Add one line per new command module. */
export const COMMANDS: readonly Register[] = [
  registerFleet,
  registerInstance,
  registerAdvise,
  registerRecord,
  registerCompare,
  registerRollout,
  registerAudit,
];
