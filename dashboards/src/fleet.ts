/**
 * Fleet overview (uid untorn-fleet): every instance ranked by doublewrite cost and write pressure, with
 * trends, the configuration facts that decide what can be done, and the console's rollouts (its own
 * /metrics, through the console signals). Reads the 5m recording rules, so the number of queries does
 * not grow with the fleet.
 */

import type * as dashboard from "@grafana/grafana-foundation-sdk/dashboard";
import { countAll, orZero, sumAll, topk, where } from "@untorn/catalog/promql";
import { signals } from "@untorn/catalog/signals";
import {
  buildDashboard,
  builtInAnnotations,
  clusterVariable,
  DASHBOARD_UIDS,
  datasourceVariable,
  fleetScope,
  instanceLinks,
  instanceVariable,
  instantTable,
  type PanelLike,
  type PanelScope,
  rolloutLinks,
  row,
  sparklineTable,
  statPanel,
  timeseriesPanel,
  untornTagAnnotations,
  webappVariable,
} from "./house.js";

const TOP = 10;

export const instancesStat = (s: PanelScope) =>
  statPanel(
    {
      title: "Instances",
      description: "Instances reporting through untorn-exporter or mysqld_exporter.",
      query: { signal: "mysql_up", instant: true, wrap: countAll },
      unit: "none",
      span: 6,
    },
    s,
  );

export const doublewriteOffStat = (s: PanelScope) =>
  statPanel(
    {
      title: "Doublewrite off",
      description: `Instances whose full page copies skip the doublewrite buffer (off or detect_only). ${signals.doublewrite_enabled.description}`,
      query: {
        signal: "doublewrite_enabled",
        instant: true,
        wrap: (v) => orZero(countAll(where(v, "==", 0))),
      },
      unit: "none",
      span: 6,
    },
    s,
  );

export const fleetDoublewriteBytesStat = (s: PanelScope) =>
  statPanel(
    {
      title: "Doublewrite pages/s, fleet",
      query: { signal: "doublewrite_pages_per_second", wrap: sumAll },
      sparkline: true,
      span: 6,
    },
    s,
  );

export const fleetTransactionsStat = (s: PanelScope) =>
  statPanel(
    {
      title: "Transactions/s, fleet",
      query: { signal: "transactions_per_second", wrap: sumAll },
      sparkline: true,
      span: 6,
    },
    s,
  );

export const rankingTable = (s: PanelScope) =>
  sparklineTable(
    {
      title: "Doublewrite cost and write pressure by instance",
      sortBy: "doublewrite_pages_per_second",
      columns: [
        { query: { signal: "doublewrite_pages_per_second" }, title: "Doublewrite pages/s" },
        { query: { signal: "doublewrite_write_bytes_share" }, title: "Doublewrite share of write bytes" },
        { query: { signal: "doublewrite_wait_seconds_per_second" }, title: "Doublewrite wait" },
        { query: { signal: "device_utilisation" }, title: "Device utilisation" },
        { query: { signal: "free_page_waits_per_second" }, title: "Free-page waits/s" },
        { query: { signal: "checkpoint_age_ratio" }, title: "Checkpoint age / capacity" },
        { query: { signal: "transactions_per_second" }, title: "Transactions/s" },
      ],
      links: instanceLinks,
    },
    s,
  );

export const topDoublewritePagesPanel = (s: PanelScope) =>
  timeseriesPanel(
    {
      title: `Top ${TOP} by doublewrite pages/s`,
      queries: [{ signal: "doublewrite_pages_per_second", wrap: (v) => topk(TOP, v) }],
      span: 12,
    },
    s,
  );

export const topDoublewriteWaitPanel = (s: PanelScope) =>
  timeseriesPanel(
    {
      title: `Top ${TOP} by doublewrite wait`,
      queries: [{ signal: "doublewrite_wait_seconds_per_second", wrap: (v) => topk(TOP, v) }],
      span: 12,
    },
    s,
  );

export const topDeviceUtilisationPanel = (s: PanelScope) =>
  timeseriesPanel(
    {
      title: `Top ${TOP} by device utilisation`,
      queries: [{ signal: "device_utilisation", wrap: (v) => topk(TOP, v) }],
      span: 12,
      min: 0,
    },
    s,
  );

export const topFreePageWaitsPanel = (s: PanelScope) =>
  timeseriesPanel(
    {
      title: `Top ${TOP} by free-page waits/s`,
      queries: [{ signal: "free_page_waits_per_second", wrap: (v) => topk(TOP, v) }],
      span: 12,
    },
    s,
  );

export const configurationTable = (s: PanelScope) =>
  instantTable(
    {
      title: "Flavor, version, doublewrite mode and atomic-write capability",
      columns: [
        {
          query: { signal: "server_info" },
          labels: { flavor: "Flavor", version: "Version", managed: "Managed" },
        },
        { query: { signal: "doublewrite_mode" }, labels: { mode: "Doublewrite" } },
        { query: { signal: "innodb_config_info" }, labels: { flush_method: "Flush method" } },
        { query: { signal: "page_size_bytes" }, title: "Page size" },
        { query: { signal: "doublewrite_batch_capacity_pages" }, title: "Batch capacity" },
        { query: { signal: "storage_info" }, labels: { fstype: "File system", device: "Device" } },
        { query: { signal: "atomic_write_unit_max_bytes" }, title: "Atomic write unit" },
        { query: { signal: "atomic_write_capable" }, title: "Atomic unit ≥ page", yesNo: true },
      ],
      links: instanceLinks,
    },
    s,
  );

// ---- the console's rollouts (console signals: one series per status, gate, verdict or rollout) ----

export const rolloutsWaitingStat = (s: PanelScope) =>
  statPanel(
    {
      title: "Rollouts waiting for a person",
      query: { console: "console_rollouts_waiting", instant: true },
      span: 6,
    },
    s,
  );

export const longestWaitStat = (s: PanelScope) =>
  statPanel(
    {
      title: "Longest wait for a person",
      query: { console: "console_longest_wait_seconds", instant: true },
      span: 6,
    },
    s,
  );

export const bakeVerdictsStat = (s: PanelScope) =>
  statPanel(
    {
      title: "Bake verdicts",
      query: { console: "console_bake_verdicts", instant: true },
      valueAndName: true,
      span: 6,
    },
    s,
  );

export const consoleStoreStat = (s: PanelScope) =>
  statPanel(
    {
      title: "Console reads its store",
      query: { console: "console_store_up", instant: true },
      yesNo: true,
      span: 6,
    },
    s,
  );

export const rolloutsByStatusPanel = (s: PanelScope) =>
  timeseriesPanel(
    {
      title: "Rollouts by status",
      queries: [{ console: "console_rollouts_by_status" }],
      span: 12,
      min: 0,
      stack: true,
    },
    s,
  );

export const timeToVerdictPanel = (s: PanelScope) =>
  timeseriesPanel(
    {
      title: "Time to a bake verdict",
      queries: [
        { console: "console_time_to_verdict_seconds", quantile: 0.5, ref: "p50", legend: "median" },
        { console: "console_time_to_verdict_seconds", quantile: 0.9, ref: "p90", legend: "p90" },
      ],
      span: 12,
      min: 0,
    },
    s,
  );

export const gateOutcomesPanel = (s: PanelScope) =>
  timeseriesPanel(
    {
      title: "Gate outcomes",
      queries: [{ console: "console_gate_results", legend: "{{gate}} {{outcome}}" }],
      span: 12,
      min: 0,
    },
    s,
  );

export const waitingRolloutsTable = (s: PanelScope) =>
  instantTable(
    {
      title: "Rollouts waiting for a person, and for how long",
      columns: [
        {
          query: { console: "console_rollout_waiting_seconds" },
          title: "Waiting",
          labels: { rollout: "Rollout", title: "Title", reason: "Why" },
        },
      ],
      links: rolloutLinks,
      linkField: "rollout",
      span: 12,
      height: 8,
    },
    s,
  );

export function fleetPanels(s: PanelScope): PanelLike[] {
  return [
    row("Fleet"),
    instancesStat(s),
    doublewriteOffStat(s),
    fleetDoublewriteBytesStat(s),
    fleetTransactionsStat(s),
    rankingTable(s),
    row("Trends"),
    topDoublewritePagesPanel(s),
    topDoublewriteWaitPanel(s),
    topDeviceUtilisationPanel(s),
    topFreePageWaitsPanel(s),
    row("Configuration"),
    configurationTable(s),
    row("Rollouts"),
    rolloutsWaitingStat(s),
    longestWaitStat(s),
    bakeVerdictsStat(s),
    consoleStoreStat(s),
    rolloutsByStatusPanel(s),
    timeToVerdictPanel(s),
    gateOutcomesPanel(s),
    waitingRolloutsTable(s),
  ];
}

export function fleetDashboard(): dashboard.Dashboard {
  return buildDashboard({
    uid: DASHBOARD_UIDS.fleet,
    title: "Untorn / Fleet",
    description:
      "Instances ranked by doublewrite cost and write pressure, with trends, and the flavor, version, doublewrite mode and atomic-write facts of each; the Untorn console's rollouts (by status, gate outcomes, bake verdicts, time to a verdict, who waits for a person). Instance names link to the instance dashboard and to the Untorn web app.",
    variables: [datasourceVariable(), clusterVariable(), instanceVariable(), webappVariable()],
    annotations: [builtInAnnotations(), untornTagAnnotations()],
    panels: fleetPanels(fleetScope),
  });
}
