import { profileFleet } from "@untorn/fleet/profile";
import type { Command } from "commander";
import { CliError, EXIT } from "../errors.js";
import type { Io } from "../io.js";
import { metadataOption, readMetadata } from "../metadata.js";
import { Progress } from "../progress.js";
import { fleetNotes, fleetTable } from "../render.js";
import { explain, openSource, ratesLine, type SourceFlags, sourceLine, sourceOptions } from "../source.js";
import { DESCRIPTIONS } from "./descriptions.js";
import type { FleetOutput } from "./fleet-output.js";

export const HOW_TO_ADD_EXPORTER = [
  "Run untorn-exporter beside each database and let Prometheus scrape it, e.g. in prometheus.yml:",
  "  scrape_configs:",
  "    - job_name: untorn",
  '      static_configs: [{ targets: ["db1:9105", "db2:9105"] }]',
  "(docs/exporter.md has the flags, the least-privilege user and the /probe setup for managed databases.)",
].join("\n");

/** `untorn fleet`: every instance ranked by expected benefit × confidence. */
export function registerFleet(program: Command, io: Io): void {
  metadataOption(sourceOptions(program.command("fleet").description(DESCRIPTIONS.fleet)))
    .option("--json", "print JSON instead of the table")
    .action(async (flags: SourceFlags & { json?: boolean; metadata?: string }, cmd: Command) => {
      const all = { ...cmd.optsWithGlobals(), ...flags } as SourceFlags & {
        json?: boolean;
        metadata?: string;
      };
      const metadata = await readMetadata(all.metadata, all.replay, io);
      const source = await openSource(all, io);
      const progress = new Progress(io, Boolean(all.json) && !io.isTty);
      let profile: Awaited<ReturnType<typeof profileFleet>>;
      try {
        progress.step("querying Prometheus");
        profile = await profileFleet(
          source.api,
          {
            ...source.facts,
            onProgress: (done, total) => progress.step(`querying Prometheus: ${done}/${total} queries`),
            onAdvising: (n) => progress.step(`advising and ranking ${n} instances`),
          },
          metadata,
        );
      } catch (err) {
        throw explain(err, source);
      } finally {
        progress.done();
      }
      if (profile.facts.length === 0 && profile.skipped.length === 0)
        throw new CliError(
          `no MySQL/MariaDB instances found ${source.url ? `at ${source.url}` : `in ${source.replay?.file}`} in the 5 minutes before ${new Date(profile.at * 1000).toISOString()}: no untorn_mysql_up (untorn-exporter) or mysql_up (mysqld_exporter) series${Object.keys(source.facts.selector ?? {}).length ? " match --match" : ""}.\n${HOW_TO_ADD_EXPORTER}`,
          EXIT.failure,
        );
      const fallbackOnly = Object.entries(profile.exporters)
        .filter(([, e]) => !e.untorn)
        .map(([i]) => i);
      if (all.json) {
        const out: FleetOutput = {
          at: new Date(profile.at * 1000).toISOString(),
          window: profile.plan.window,
          source: source.url ?? null,
          recorded: source.replay ?? null,
          queries: profile.queries,
          recordingRules: profile.recordingRules,
          clockNote: profile.clockNote,
          rows: profile.rows,
          summary: profile.summary,
          atRisk: profile.ranking.atRisk,
          counts: profile.ranking.counts,
          skipped: profile.skipped,
          missing: profile.missing,
          exporters: profile.exporters,
          declared: profile.declared,
          warnings: profile.warnings,
        };
        io.out(`${JSON.stringify(out, null, 2)}\n`);
        return;
      }
      io.out(
        `${sourceLine(source, profile.at)}; ${profile.queries} queries${ratesLine(source, profile.recordingRules)}${profile.clockNote ? `; ${profile.clockNote}` : ""}\n\n`,
      );
      io.out(fleetTable(profile.rows));
      io.out(fleetNotes(profile.ranking, profile.skipped, fallbackOnly, profile.summary.blockedByGate));
      if (Object.values(profile.exporters).every((e) => !e.untorn))
        io.err(
          `untorn: no untorn-exporter series found; the profile uses mysqld_exporter's.\n${HOW_TO_ADD_EXPORTER}\n`,
        );
      for (const w of profile.warnings) io.err(`warning: ${w}\n`);
    });
}
