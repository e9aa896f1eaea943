import { profileInstance } from "@untorn/fleet/profile";
import type { Command } from "commander";
import { CliError, EXIT } from "../errors.js";
import type { Io } from "../io.js";
import { metadataOption, readMetadata } from "../metadata.js";
import { Progress } from "../progress.js";
import { instanceView } from "../render.js";
import { explain, openSource, ratesLine, type SourceFlags, sourceLine, sourceOptions } from "../source.js";
import { DESCRIPTIONS } from "./descriptions.js";

/** `untorn instance <name>`: one instance's profile, verdict with evidence, findings and safety gate. */
export function registerInstance(program: Command, io: Io): void {
  metadataOption(
    sourceOptions(
      program
        .command("instance")
        .argument("<name>", "the instance label, e.g. db1:9105")
        .description(DESCRIPTIONS.instance),
    ),
  )
    .option("--json", "print the facts and the advice as JSON")
    .action(
      async (name: string, flags: SourceFlags & { json?: boolean; metadata?: string }, cmd: Command) => {
        const all = { ...cmd.optsWithGlobals(), ...flags } as SourceFlags & {
          json?: boolean;
          metadata?: string;
        };
        const metadata = await readMetadata(all.metadata, all.replay, io);
        const source = await openSource(all, io);
        const progress = new Progress(io, Boolean(all.json) && !io.isTty);
        let p: Awaited<ReturnType<typeof profileInstance>>;
        try {
          progress.step(`querying Prometheus for ${name}`);
          p = await profileInstance(
            source.api,
            name,
            {
              ...source.facts,
              onProgress: (done, total) =>
                progress.step(`querying Prometheus for ${name}: ${done}/${total} queries`),
            },
            metadata?.get(name),
          );
        } catch (err) {
          throw explain(err, source);
        } finally {
          progress.done();
        }
        if (!p.facts || !p.advice) {
          const why = p.skipped ? `: ${p.skipped.reason}` : "";
          const known = source.replay ? ` (recorded instances: ${source.replay.instances.join(", ")})` : "";
          throw new CliError(
            `instance ${name} has no facts ${source.url ? `at ${source.url}` : `in ${source.replay?.file}`}${why || ": no series with this instance label"}${known}`,
            EXIT.failure,
          );
        }
        if (all.json) {
          io.out(
            `${JSON.stringify(
              {
                at: new Date(p.fleet.at * 1000).toISOString(),
                window: p.fleet.plan.window,
                source: source.url ?? null,
                recorded: source.replay ?? null,
                queries: p.fleet.queries,
                recordingRules: p.fleet.recordingRules,
                clockNote: p.fleet.clockNote,
                facts: p.facts,
                missing: p.missing,
                declared: p.declared,
                advice: p.advice,
                warnings: [...p.fleet.warnings, ...p.conflicts],
              },
              null,
              2,
            )}\n`,
          );
          return;
        }
        io.out(
          `${sourceLine(source, p.fleet.at)}; ${p.fleet.queries} queries${ratesLine(source, p.fleet.recordingRules)}${p.fleet.clockNote ? `; ${p.fleet.clockNote}` : ""}\n\n`,
        );
        io.out(instanceView(p.advice, p.missing));
        if (p.declared.length) io.out(`\nDeclared (--metadata): ${p.declared.join(", ")}\n`);
        for (const w of [...p.fleet.warnings, ...p.conflicts]) io.err(`warning: ${w}\n`);
      },
    );
}
