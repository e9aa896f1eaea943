/**
 * Rollout comparison (uid untorn-rollout): side A ($instance) and side B ($instance_b, shifted back by
 * $shift_b) next to each other, with restarts, doublewrite mode changes and rollout notes as annotations.
 * Two instances at the same time (canary vs control replica), or one instance before and after a change
 * (B = A, shift 1d or 7d to match the time of day and week). Per-transaction panels are the ones to read
 * when the instance was not saturated (docs/reference/published-results.md §9).
 */

import * as dashboard from "@grafana/grafana-foundation-sdk/dashboard";
import type { SignalId } from "@untorn/catalog/signals";
import {
  buildDashboard,
  builtInAnnotations,
  clusterVariable,
  DASHBOARD_UIDS,
  datasourceVariable,
  eventAnnotation,
  instanceScope,
  instanceVariable,
  type PanelLike,
  type PanelScope,
  row,
  statPanel,
  untornTagAnnotations,
  v,
  webappVariable,
} from "./house.js";
import {
  bytesPerTxPanel,
  checkpointAgePanel,
  deviceIopsVsUtilisationPanel,
  doublewriteSharesPanel,
  doublewriteWaitPanel,
  freePageWaitsPanel,
  fsyncsPerTxPanel,
  miscLatencyByClassPanel,
  pagesFlushedVsDoublewritePanel,
  replicationLagPanel,
  transactionsPanel,
  writeOpsPerTxPanel,
} from "./instance.js";

export const SHIFT_VARIABLE = "shift_b";
const SHIFTS = ["0h", "1h", "1d", "7d", "14d", "28d"];

export const sideA: PanelScope = instanceScope("instance", "a", "A ");
export const sideB: PanelScope = instanceScope("instance_b", "b", "B ");

type AnyPanel = Exclude<PanelLike, { readonly row: string }>;

/** The same panel for both sides: A on the left, B on the right and shifted by $shift_b. */
function pair(title: string, panel: (s: PanelScope) => AnyPanel): PanelLike[] {
  return [
    panel(sideA)
      .title(`${title}: A ${v("instance")}`)
      .span(12),
    panel(sideB)
      .title(`${title}: B ${v("instance_b")} shifted ${v(SHIFT_VARIABLE)}`)
      .span(12)
      .timeShift(v(SHIFT_VARIABLE)),
  ];
}

/** Mean over the time range, for A and for B. */
function meanStats(title: string, signal: SignalId): PanelLike[] {
  return [
    statPanel({ title: `${title}: A`, query: { signal }, calc: "mean", span: 3 }, sideA),
    statPanel({ title: `${title}: B`, query: { signal }, calc: "mean", span: 3 }, sideB).timeShift(
      v(SHIFT_VARIABLE),
    ),
  ];
}

export function rolloutPanels(): PanelLike[] {
  return [
    row("Means over the time range"),
    ...meanStats("Transactions/s", "transactions_per_second"),
    ...meanStats("Write bytes per transaction", "write_bytes_per_transaction"),
    ...meanStats("fsyncs per transaction", "fsyncs_per_transaction"),
    ...meanStats("Doublewrite pages/s", "doublewrite_pages_per_second"),
    row("Throughput"),
    ...pair("Transactions/s", transactionsPanel),
    row("Efficiency"),
    ...pair("Write bytes per transaction", bytesPerTxPanel),
    ...pair("Write ops per transaction", writeOpsPerTxPanel),
    ...pair("fsyncs per transaction", fsyncsPerTxPanel),
    row("Doublewrite"),
    ...pair("Data pages flushed vs doublewrite pages", pagesFlushedVsDoublewritePanel),
    ...pair("Doublewrite shares", doublewriteSharesPanel),
    ...pair("Doublewrite wait", doublewriteWaitPanel),
    row("Latency and device"),
    ...pair("Misc (≈fsync) latency", miscLatencyByClassPanel),
    ...pair("Device write IOPS vs utilisation", deviceIopsVsUtilisationPanel),
    row("Pressure"),
    ...pair("Free-page waits/s", freePageWaitsPanel),
    ...pair("Checkpoint age / capacity", checkpointAgePanel),
    row("Replication"),
    ...pair("Replication lag", replicationLagPanel),
  ];
}

function shiftVariable(): dashboard.CustomVariableBuilder {
  return new dashboard.CustomVariableBuilder(SHIFT_VARIABLE)
    .label("Shift B back by")
    .description("Time shift of side B: 0h for two instances at the same time, 1d or 7d for before/after.")
    .values(SHIFTS.join(","))
    .current({ text: "0h", value: "0h" });
}

export function rolloutDashboard(): dashboard.Dashboard {
  return buildDashboard({
    uid: DASHBOARD_UIDS.rollout,
    title: "Untorn / Rollout comparison",
    description:
      "Two instances (canary and control) or one instance at two times (before and after), side by side. Pick A, B and the shift of B; restarts, doublewrite mode changes and notes tagged 'untorn' are annotated.",
    variables: [
      datasourceVariable(),
      clusterVariable(),
      instanceVariable("instance", "A", false),
      instanceVariable("instance_b", "B", false),
      shiftVariable(),
      webappVariable(),
    ],
    annotations: [
      builtInAnnotations(),
      untornTagAnnotations(),
      eventAnnotation("restarts", sideA, "red"),
      eventAnnotation("doublewrite_mode_changes", sideA, "orange"),
      eventAnnotation("restarts", sideB, "dark-red"),
      eventAnnotation("doublewrite_mode_changes", sideB, "dark-orange"),
    ],
    panels: rolloutPanels(),
    time: { from: "now-24h", to: "now" },
  });
}
