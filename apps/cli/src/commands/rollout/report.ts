/** `untorn rollout report <id>`: the change report as Markdown or JSON. */
import { writeFile } from "node:fs/promises";
import { buildReport, renderReportMarkdown } from "@untorn/rollout/report";
import { getRollout } from "@untorn/rollout-runner/runner";
import type { Command } from "commander";
import { CliError, EXIT } from "../../errors.js";
import type { Io } from "../../io.js";
import { commonOptions, parseId, type StoreFlags } from "./options.js";
import { withStore } from "./store.js";

/** `rollout report <id>`. */
export function registerReport(rollout: Command, io: Io): void {
  commonOptions(
    rollout
      .command("report <id>")
      .description("The change report, as Markdown (default) or JSON (rollout-report.schema.json)."),
    false,
  )
    .option("--format <format>", "md or json (default md; --json = json)")
    .option("--out <file>", "write it to this file instead of stdout")
    .action(async (idText: string, flags: StoreFlags & { json?: boolean; format?: string; out?: string }) => {
      const id = parseId(idText);
      const format = flags.format ?? (flags.json ? "json" : "md");
      if (format !== "md" && format !== "json")
        throw new CliError(`--format ${JSON.stringify(format)}: expected md or json`, EXIT.usage);
      if (flags.json && flags.format === "md")
        throw new CliError("--json and --format md contradict each other", EXIT.usage);
      await withStore(flags, io, async (store) => {
        const s = await getRollout({ store }, id);
        const report = buildReport(s.state, Date.now() / 1000);
        const text =
          format === "json" ? `${JSON.stringify(report, null, 2)}\n` : renderReportMarkdown(report);
        if (flags.out === undefined) io.out(text);
        else {
          try {
            await writeFile(flags.out, text);
          } catch (e) {
            throw new CliError(`cannot write ${flags.out}: ${(e as Error).message}`, EXIT.failure);
          }
          io.err(`wrote ${flags.out}\n`);
        }
      });
    });
}
