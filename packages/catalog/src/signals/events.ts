/** Event signals for annotations: restarts and doublewrite mode changes. */
import { fallbackMetrics as F } from "../fallback-metrics.js";
import { metrics as M } from "../metrics.js";
import { range, sumBy, where } from "../promql.js";
import { valueRange } from "./component.js";
import { type DirectSpec, EVENT } from "./signal.js";

export const directSpecs = {
  restarts: {
    title: "Restarts",
    needs: EVENT,
    description: "Server restarts in the window (uptime went down).",
    unit: "events",
    group: "events",
    metrics: ["uptime"],
    labels: [],
    windowed: true,
    untorn: (s) => where(sumBy([], `resets(${range(s, M.uptime.name)})`), ">", 0),
    fallback: {
      metrics: ["uptime"],
      render: (s) => where(sumBy([], `resets(${range(s, F.uptime.name)})`), ">", 0),
    },
  },
  doublewrite_mode_changes: {
    title: "Doublewrite mode changes",
    needs: EVENT,
    description: "innodb_doublewrite changed in the window.",
    unit: "events",
    group: "events",
    metrics: ["doublewriteMode"],
    labels: [],
    windowed: true,
    untorn: (s) => where(sumBy([], valueRange(range(s, M.doublewriteMode.name))), ">", 0),
    fallback: {
      metrics: ["doublewrite"],
      render: (s) => where(sumBy([], valueRange(range(s, F.doublewrite.name))), ">", 0),
    },
  },
} as const satisfies Record<string, DirectSpec>;
