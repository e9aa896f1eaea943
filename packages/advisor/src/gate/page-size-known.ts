/** innodb_page_size: every self-managed path compares a unit with it (docs/reference/mysql.md §1.4). */
import { bytes } from "../format.js";
import { defineGateCheck, selfManaged } from "./check.js";

export const pageSizeKnown = defineGateCheck({
  meta: {
    id: "page-size-known",
    path: "hardware-atomic-write",
    shared: true,
    title: "innodb_page_size known",
    appliesWhen: "self-managed (every path but the provider's needs it)",
    passesWhen: "`config.pageSizeBytes` is known",
    needs: ["config.pageSizeBytes"],
    source: "docs/reference/mysql.md §1.4",
  },
  applies: selfManaged,
  evaluate: ({ page }) => ({
    status: page === null ? "unknown" : "pass",
    detail: page === null ? "innodb_page_size is unknown." : `innodb_page_size = ${bytes(page)}.`,
    fix: "collect innodb_page_size (untorn_innodb_page_size_bytes)",
  }),
});
