import { mkdir, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { recordFleet } from "@untorn/fleet/record";
import { encodeReplay } from "@untorn/fleet/replay";
import type { Command } from "commander";
import { CliError, EXIT } from "../errors.js";
import type { Io } from "../io.js";
import { Progress } from "../progress.js";
import { explain, openSource, parseWindow, type SourceFlags, sourceOptions } from "../source.js";
import { VERSION } from "../version.js";
import { DESCRIPTIONS } from "./descriptions.js";
import { HOW_TO_ADD_EXPORTER } from "./fleet.js";

interface RecordFlags extends SourceFlags {
  out: string;
  span: string;
  every: string;
  note?: string;
}

/** `untorn record`: captures what fleet, instance and charts need into a replay file. */
export function registerRecord(program: Command, io: Io): void {
  sourceOptions(program.command("record").description(DESCRIPTIONS.record))
    .requiredOption("--out <file>", "replay file to write (gzip JSON, docs/schemas/replay.schema.json)")
    .option("--span <duration>", "how far back to record", "3h")
    .option("--every <duration>", "time between recorded evaluations", "5m")
    .option("--note <text>", "free text stored in the file's metadata")
    .action(async (flags: RecordFlags, cmd: Command) => {
      const all = { ...cmd.optsWithGlobals(), ...flags } as RecordFlags;
      if (all.replay !== undefined)
        throw new CliError("record reads a live Prometheus, not --replay", EXIT.usage);
      const span = parseWindow(all.span, "--span");
      const every = parseWindow(all.every, "--every");
      const source = await openSource(all, io);
      const progress = new Progress(io);
      let rec: Awaited<ReturnType<typeof recordFleet>>;
      try {
        progress.step("recording");
        rec = await recordFleet(source.api, {
          ...source.facts,
          span,
          every,
          recordedFrom: source.url ?? "",
          tool: `untorn ${VERSION}`,
          ...(all.note ? { note: all.note } : {}),
          onProgress: (step, done, total) => progress.step(`recording ${done + 1}/${total}: ${step}`),
        });
      } catch (err) {
        throw explain(err, source);
      } finally {
        progress.done();
      }
      if (rec.file.meta.instances.length === 0)
        throw new CliError(
          `nothing to record at ${source.url}: no untorn_mysql_up or mysql_up series.\n${HOW_TO_ADD_EXPORTER}`,
          EXIT.failure,
        );
      const bytes = encodeReplay(rec.file);
      const tmp = `${all.out}.tmp-${process.pid}`;
      try {
        await mkdir(dirname(all.out), { recursive: true });
        await writeFile(tmp, bytes);
        await rename(tmp, all.out);
      } catch (err) {
        throw new CliError(`cannot write ${all.out}: ${(err as Error).message}`, EXIT.failure);
      }
      const m = rec.file.meta;
      io.out(
        `wrote ${all.out}: ${m.instances.length} instances, ${rec.file.instant[0]?.answers.length ?? 0} evaluation times (${new Date(m.start * 1000).toISOString()} to ${new Date(m.end * 1000).toISOString()}, every ${every}), window ${m.window}, ${rec.queries} queries, ${Math.round(bytes.length / 1024)} KiB\n`,
      );
      for (const w of rec.warnings) io.err(`warning: ${w}\n`);
    });
}
