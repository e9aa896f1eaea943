/**
 * No indicator: notes on how to read the others when the window's facts disagree or a counter means
 * something else on this server (docs/reference/mysql.md §1.6, docs/reference/performance-schema.md §5.1).
 */
import { ioModeOf, protection } from "../config-state.js";
import { defineIndicatorGroup } from "./indicator.js";

const meta = {
  id: "window-notes",
  title: "Notes on the window",
  indicators: [],
  needs: [
    "config.doublewrite",
    "config.readOnly",
    "config.flushMethod",
    "workload.fileIo",
    "workload.device",
  ],
  uses: ["dblwrPagesRate", "pagesFlushedRate"],
  source: "docs/reference/mysql.md §1.6, docs/reference/performance-schema.md §5.1",
} as const;

export const windowNotes = defineIndicatorGroup({
  meta,
  build({ facts, caps, built }) {
    const notes: string[] = [];
    const pages = built("dblwrPagesRate").value;
    const flushed = built("pagesFlushedRate").value;
    const prot = protection(facts);
    if (prot === "off" && pages !== null && pages > 0)
      notes.push(
        "innodb_doublewrite is off but doublewrite pages were written in the window: the setting changed during the window or the facts disagree.",
      );
    if (prot === "full" && pages === 0 && flushed !== null && flushed > 0 && facts.config.readOnly !== true)
      notes.push(
        "Pages were flushed but no doublewrite pages were counted: redo logging may be disabled (8.0.21+), which skips doublewrite (docs/reference/mysql.md §1.6).",
      );
    if (facts.config.readOnly === true)
      notes.push(
        "innodb_read_only=ON: InnoDB skips the doublewrite buffer in read-only mode (docs/reference/mysql.md §1.6).",
      );
    if (!caps.dblwrFileInstrument && facts.workload?.fileIo?.system_tablespace)
      notes.push(
        "Doublewrite file I/O is counted under system_tablespace on this flavor/version (docs/reference/performance-schema.md §5.1); byte shares come from Innodb_dblwr_pages_written instead.",
      );
    if (ioModeOf(facts) === "buffered" && facts.workload?.device)
      notes.push("Data files use buffered I/O: device write counts include page-cache writeback merging.");
    return { indicators: [], notes };
  },
});
