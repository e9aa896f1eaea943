import { advise } from "@untorn/advisor/advise";
import { instanceFactsSchema } from "@untorn/advisor/facts";
import { profileFacts } from "@untorn/fleet/profile";
import type { Command } from "commander";
import { z } from "zod";
import { CliError, describeIssues, EXIT } from "../errors.js";
import { type Io, readJsonFile } from "../io.js";
import { fleetNotes, fleetTable, instanceView } from "../render.js";
import type { AdviseFleetOutput } from "./advise-output.js";
import { DESCRIPTIONS } from "./descriptions.js";

/** `untorn advise --facts <file>`: the advisor offline, on InstanceFacts JSON (one object or an array). */
export function registerAdvise(program: Command, io: Io): void {
  program
    .command("advise")
    .description(DESCRIPTIONS.advise)
    .requiredOption("--facts <file>", "InstanceFacts JSON file, or - for stdin")
    .option("--json", "print the advice as JSON (docs/schemas/cli-advise.schema.json)")
    .action(async (flags: { facts: string; json?: boolean }) => {
      const data = await readJsonFile(flags.facts, z.unknown(), "InstanceFacts");
      const schema = Array.isArray(data) ? z.array(instanceFactsSchema).min(1) : instanceFactsSchema;
      const parsed = schema.safeParse(data);
      if (!parsed.success)
        throw new CliError(
          `${flags.facts} is not valid InstanceFacts${Array.isArray(data) ? " (array)" : ""}:\n${describeIssues(parsed.error.issues)}`,
          EXIT.invalidInput,
        );
      if (!Array.isArray(parsed.data)) {
        const a = advise(parsed.data);
        io.out(flags.json ? `${JSON.stringify(a, null, 2)}\n` : instanceView(a));
        return;
      }
      const facts = parsed.data;
      const dup = facts.map((f) => f.identity.instance).find((x, i, all) => all.indexOf(x) !== i);
      if (dup) throw new CliError(`${flags.facts}: instance ${dup} appears twice`, EXIT.invalidInput);
      const p = profileFacts(facts);
      if (flags.json) {
        const out: AdviseFleetOutput = {
          rows: p.rows,
          summary: p.summary,
          atRisk: p.ranking.atRisk,
          counts: p.ranking.counts,
          advice: p.advice,
          failed: p.failed,
        };
        io.out(`${JSON.stringify(out, null, 2)}\n`);
        return;
      }
      io.out(fleetTable(p.rows));
      io.out(fleetNotes(p.ranking, p.failed, [], p.summary.blockedByGate));
    });
}
