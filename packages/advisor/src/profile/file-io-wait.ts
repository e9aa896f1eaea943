/**
 * Doublewrite's share of file I/O wait: only MySQL/Percona 8.0.20+ has a doublewrite file instrument;
 * elsewhere its I/O is inside system_tablespace (docs/reference/performance-schema.md §5.1).
 */
import type { FileClass } from "../facts.js";
import { avgOf, clamp01, defineIndicatorGroup, div, indicatorsOf, S, V } from "./indicator.js";

const meta = {
  id: "file-io-wait",
  title: "File I/O wait",
  indicators: [
    {
      id: "dblwrShareOfFileIoWait",
      label: "Doublewrite share of file I/O wait",
      unit: "ratio",
      formula: "(write + misc seconds of the doublewrite class) / (write + misc seconds of all file classes)",
      remark: "MySQL/Percona 8.0.20+ only",
    },
  ],
  needs: ["workload.fileIo", "config.perfSchemaEnabled", "server.version"],
  uses: [],
  source: "docs/reference/performance-schema.md §5.1",
} as const;

export const fileIoWait = defineIndicatorGroup({
  meta,
  build({ facts, caps }) {
    const put = indicatorsOf(meta);
    const io = facts.workload?.fileIo;
    const classes = io ? (Object.keys(io) as FileClass[]) : [];
    const waitOf = (c: FileClass) => {
      const e = io?.[c];
      const a = avgOf(e?.writeSecondsPerSecond);
      const b = avgOf(e?.miscSecondsPerSecond);
      return a === null && b === null ? null : (a ?? 0) + (b ?? 0);
    };
    let total: number | null = null;
    for (const c of classes) {
      const x = waitOf(c);
      if (x !== null) total = (total ?? 0) + x;
    }
    const dblwrWait = io?.doublewrite ? waitOf("doublewrite") : null;
    let note: string | undefined;
    if (!caps.dblwrFileInstrument)
      note =
        "no doublewrite file instrument on this flavor/version: its I/O is inside system_tablespace (docs/reference/performance-schema.md §5.1)";
    else if (facts.config.perfSchemaEnabled === false) note = "performance_schema is off";
    const value = caps.dblwrFileInstrument ? clamp01(div(dblwrWait, total)) : null;
    return {
      indicators: [
        put("dblwrShareOfFileIoWait", {
          inputs: caps.dblwrFileInstrument
            ? [S("workload.fileIo.doublewrite", io?.doublewrite?.writeSecondsPerSecond)]
            : [V("workload.fileIo (no doublewrite instrument)", null)],
          value,
          note: value === null ? note : undefined,
        }),
      ],
    };
  },
});
