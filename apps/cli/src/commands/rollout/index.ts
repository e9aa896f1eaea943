/**
 * `untorn rollout ...`: staged rollouts kept in the store (PGlite data directory or PostgreSQL), moved
 * by @untorn/rollout through @untorn/rollout-runner, the same functions the console calls.
 */
import type { Command } from "commander";
import type { Io } from "../../io.js";
import { DESCRIPTIONS } from "../descriptions.js";
import { registerCommand } from "./command.js";
import { registerCreate } from "./create.js";
import { registerList } from "./list.js";
import { registerPlan } from "./plan.js";
import { registerReconcile } from "./reconcile.js";
import { registerReport } from "./report.js";
import { registerShow } from "./show.js";
import { registerVerbs } from "./verbs.js";

/** The subcommands, in the order `untorn rollout --help` lists them. */
export function registerRollout(program: Command, io: Io): void {
  const rollout = program.command("rollout").description(DESCRIPTIONS.rollout);
  registerPlan(rollout, io);
  registerCreate(rollout, io);
  registerList(rollout, io);
  registerShow(rollout, io);
  registerVerbs(rollout, io);
  registerCommand(rollout, io);
  registerReconcile(rollout, io);
  registerReport(rollout, io);
}
