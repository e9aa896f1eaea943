/**
 * Fleet overview (uid untorn-fleet): every instance ranked by doublewrite cost and write pressure, with
 * trends, and the configuration facts that decide what can be done. Reads the 5m recording rules, so
 * the number of queries does not grow with the fleet.
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
  ];
}

export function fleetDashboard(): dashboard.Dashboard {
  return buildDashboard({
    uid: DASHBOARD_UIDS.fleet,
    title: "Untorn / Fleet",
    description:
      "Instances ranked by doublewrite cost and write pressure, with trends, and the flavor, version, doublewrite mode and atomic-write facts of each. Instance names link to the instance dashboard and to the Untorn web app.",
    variables: [datasourceVariable(), clusterVariable(), instanceVariable(), webappVariable()],
    annotations: [builtInAnnotations(), untornTagAnnotations()],
    panels: fleetPanels(fleetScope),
  });
}
