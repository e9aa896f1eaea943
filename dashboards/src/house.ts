/**
 * House defaults every Untorn panel is built on (grafana-foundation-sdk builders), the template
 * variables, and the one way a panel gets a query: from a catalog signal, or for the console's own
 * rollout metrics from a console signal (@untorn/catalog/console-signals). A target's refId is the
 * signal id (plus a suffix for the rollout dashboard's B side, or a console query's quantile), so every
 * query in the generated JSON names the signal it renders; queries.ts relies on that.
 */

import type * as cog from "@grafana/grafana-foundation-sdk/cog";
import * as common from "@grafana/grafana-foundation-sdk/common";
import * as dashboard from "@grafana/grafana-foundation-sdk/dashboard";
import * as prometheus from "@grafana/grafana-foundation-sdk/prometheus";
import * as stat from "@grafana/grafana-foundation-sdk/stat";
import * as table from "@grafana/grafana-foundation-sdk/table";
import * as timeseries from "@grafana/grafana-foundation-sdk/timeseries";
import {
  type ConsoleSignalId,
  type ConsoleSignalUnit,
  consoleSignals,
} from "@untorn/catalog/console-signals";
import { re, type Selector, type Vec } from "@untorn/catalog/promql";
import type { ExprOptions, SignalId, SignalUnit } from "@untorn/catalog/signals";
import { presenceSelector, signals } from "@untorn/catalog/signals";

/** `${name}` in Grafana's variable syntax. */
export const v = (name: string): string => `\${${name}}`;

/** uid of the Prometheus datasource the provisioning files create; Grafana-managed alerts query it. */
export const DATASOURCE_UID = "untorn-prometheus";
export const DATASOURCE: { type: string; uid: string } = { type: "prometheus", uid: v("datasource") };

export const DASHBOARD_UIDS = {
  fleet: "untorn-fleet",
  instance: "untorn-instance",
  rollout: "untorn-rollout",
} as const;

export const TAG = "untorn";

/** Where the web app's instance page lives: `${webapp_url}/instances/<instance>`. */
export const WEBAPP_DEFAULT_URL = "http://localhost:3000";
export const WEBAPP_INSTANCE_PATH = "/instances/";
/** And its rollout page: `${webapp_url}/rollouts/<id>`. */
export const WEBAPP_ROLLOUT_PATH = "/rollouts/";

/** How a dashboard reads signals: which instances, which window, recorded series or not. */
export interface PanelScope {
  readonly selector: Selector;
  readonly window: string;
  readonly recorded: boolean;
  /** Appended to refIds so two scopes can share a panel (rollout A/B). */
  readonly refSuffix: string;
  /** Legend prefix, e.g. "A " on the rollout dashboard. */
  readonly legendPrefix: string;
}

export const instanceScope = (variable = "instance", refSuffix = "", legendPrefix = ""): PanelScope => ({
  selector: { instance: re(`$${variable}`) },
  window: "$__rate_interval",
  recorded: false,
  refSuffix,
  legendPrefix,
});

/** Fleet panels read the 5m recording rules: cheap across thousands of instances. */
export const fleetScope: PanelScope = {
  selector: { instance: re("$instance") },
  window: "5m",
  recorded: true,
  refSuffix: "",
  legendPrefix: "",
};

export interface QuerySpec {
  readonly signal: SignalId;
  readonly legend?: string;
  /** Instant query (tables, stat panels of configuration). */
  readonly instant?: boolean;
  readonly format?: "table" | "time_series";
  readonly options?: Omit<ExprOptions, "selector" | "window" | "recorded">;
  /** Wraps the signal with catalog helpers, e.g. topk. */
  readonly wrap?: (v: Vec) => Vec;
}

/**
 * A query of a console signal: the console's own /metrics, one result per rollout label set, not per
 * database instance, so the scope's selector and window do not apply.
 */
export interface ConsoleQuerySpec {
  readonly console: ConsoleSignalId;
  readonly legend?: string;
  readonly instant?: boolean;
  readonly format?: "table" | "time_series";
  /** The time-to-verdict signal's quantile. */
  readonly quantile?: number;
  /** Suffix that tells two queries of one console signal apart on a panel (`p50`, `p90`). */
  readonly ref?: string;
}

/** What a panel can query: a catalog signal, or a console signal. */
export type AnyQuerySpec = QuerySpec | ConsoleQuerySpec;

const isConsole = (q: AnyQuerySpec): q is ConsoleQuerySpec => "console" in q;

export const REF_SEPARATOR = "__";

export const refIdOf = (signal: SignalId, scope: PanelScope): string =>
  `${signal}${scope.refSuffix ? `${REF_SEPARATOR}${scope.refSuffix}` : ""}`;

/** The refId a query gets: its signal id, then the console query's own suffix or the scope's. */
export function queryRefId(q: AnyQuerySpec, scope: PanelScope): string {
  if (!isConsole(q)) return refIdOf(q.signal, scope);
  const suffix = [q.ref, scope.refSuffix].filter(Boolean).join(REF_SEPARATOR);
  return `${q.console}${suffix ? `${REF_SEPARATOR}${suffix}` : ""}`;
}

function consoleTarget(q: ConsoleQuerySpec, scope: PanelScope): prometheus.DataqueryBuilder {
  const s = consoleSignals[q.console];
  const legend = q.legend ?? (s.labels.length ? s.labels.map((l) => `{{${l}}}`).join(" ") : s.title);
  return new prometheus.DataqueryBuilder()
    .datasource(DATASOURCE)
    .refId(queryRefId(q, scope))
    .expr(s.expr(q.quantile === undefined ? {} : { quantile: q.quantile }))
    .legendFormat(`${scope.legendPrefix}${legend}`);
}

export function target(q: AnyQuerySpec, scope: PanelScope): prometheus.DataqueryBuilder {
  const b = isConsole(q) ? consoleTarget(q, scope) : signalTarget(q, scope);
  if (q.instant) b.instant();
  else b.range();
  if (q.format)
    b.format(q.format === "table" ? prometheus.PromQueryFormat.Table : prometheus.PromQueryFormat.TimeSeries);
  return b;
}

function signalTarget(q: QuerySpec, scope: PanelScope): prometheus.DataqueryBuilder {
  const s = signals[q.signal];
  const vector = s.vec({
    ...q.options,
    selector: scope.selector,
    window: scope.window,
    recorded: scope.recorded,
  });
  return new prometheus.DataqueryBuilder()
    .datasource(DATASOURCE)
    .refId(refIdOf(q.signal, scope))
    .expr((q.wrap ? q.wrap(vector) : vector).q)
    .legendFormat(`${scope.legendPrefix}${q.legend ?? defaultLegend(s.labels)}`);
}

function defaultLegend(labels: readonly string[]): string {
  return ["{{instance}}", ...labels.map((l) => `{{${l}}}`)].join(" ");
}

/** Grafana unit ids for catalog units. */
export const GRAFANA_UNITS: Record<SignalUnit, string> = {
  "pages/s": "suffix: pages/s",
  "batches/s": "suffix: batches/s",
  "ops/s": "ops",
  "fsyncs/s": "suffix: fsyncs/s",
  "transactions/s": "suffix: tx/s",
  "rows/s": "suffix: rows/s",
  "waits/s": "suffix: waits/s",
  "bytes/s": "binBps",
  "seconds/s": "suffix: s/s",
  seconds: "s",
  bytes: "bytes",
  pages: "suffix: pages",
  "pages/batch": "suffix: pages/batch",
  "fsyncs/transaction": "suffix: fsyncs/tx",
  "ops/transaction": "suffix: ops/tx",
  "bytes/transaction": "bytes",
  ratio: "percentunit",
  bool: "none",
  count: "none",
  info: "none",
  events: "none",
};

/** Grafana unit ids for console signal units. */
export const CONSOLE_GRAFANA_UNITS: Record<ConsoleSignalUnit, string> = {
  rollouts: "none",
  decisions: "none",
  waves: "none",
  seconds: "s",
  bool: "none",
};

export const unitOf = (id: SignalId): string => GRAFANA_UNITS[signals[id].unit];

/** The Grafana unit of what a query reads. */
export const queryUnit = (q: AnyQuerySpec): string =>
  isConsole(q) ? CONSOLE_GRAFANA_UNITS[consoleSignals[q.console].unit] : unitOf(q.signal);

/** Where the console signals have data, in a panel's description. */
const CONSOLE_NEEDS =
  "Needs: Prometheus scraping the Untorn console's /metrics with its viewer token (docs/web.md, Console metrics).";

/** Description of a panel: each signal's description and where it has data. */
export function describe(ids: readonly SignalId[], extra?: string): string {
  return describeQueries(
    ids.map((signal) => ({ signal })),
    extra,
  );
}

/** Description of a panel from its queries: each query's signal and where it has data. */
export function describeQueries(queries: readonly AnyQuerySpec[], extra?: string): string {
  const parts = queries.map((q) => {
    if (isConsole(q)) {
      const s = consoleSignals[q.console];
      return `${s.title}: ${s.description} ${CONSOLE_NEEDS}`;
    }
    const s = signals[q.signal];
    return `${s.title}: ${s.description}${s.requires ? ` Needs: ${s.requires}.` : ""}`;
  });
  return [extra, ...parts].filter(Boolean).join("\n\n");
}

const YES_NO: dashboard.ValueMapping[] = [
  {
    type: dashboard.MappingType.ValueToText,
    options: { "0": { text: "no", color: "text" }, "1": { text: "yes", color: "text" } },
  },
];

// ---- panels ----

export interface TimeseriesOptions {
  readonly title: string;
  readonly queries: readonly AnyQuerySpec[];
  readonly unit?: string;
  readonly description?: string;
  readonly span?: number;
  readonly height?: number;
  readonly min?: number;
  readonly max?: number;
  /** Series (by refId) drawn on a right axis with their own unit. */
  readonly rightAxis?: { readonly signal: SignalId; readonly unit: string };
  readonly stack?: boolean;
}

export function timeseriesPanel(o: TimeseriesOptions, scope: PanelScope): timeseries.PanelBuilder {
  const first = o.queries[0];
  if (!first) throw new Error(`panel ${o.title} has no query`);
  const p = new timeseries.PanelBuilder()
    .title(o.title)
    .description(o.description ?? describeQueries(o.queries))
    .datasource(DATASOURCE)
    .unit(o.unit ?? queryUnit(first))
    .span(o.span ?? 8)
    .height(o.height ?? 8)
    .lineWidth(1)
    .fillOpacity(10)
    .showPoints(common.VisibilityMode.Never)
    .spanNulls(false)
    .legend(
      new common.VizLegendOptionsBuilder()
        .displayMode(common.LegendDisplayMode.List)
        .placement(common.LegendPlacement.Bottom)
        .showLegend(true)
        .calcs([]),
    )
    .tooltip(
      new common.VizTooltipOptionsBuilder()
        .mode(common.TooltipDisplayMode.Multi)
        .sort(common.SortOrder.Descending),
    );
  if (o.min !== undefined) p.min(o.min);
  if (o.max !== undefined) p.max(o.max);
  if (o.stack) p.stacking(new common.StackingConfigBuilder().mode(common.StackingMode.Normal));
  for (const q of o.queries) p.withTarget(target(q, scope));
  if (o.rightAxis) {
    p.withOverride({
      matcher: { id: "byFrameRefID", options: refIdOf(o.rightAxis.signal, scope) },
      properties: [
        { id: "custom.axisPlacement", value: common.AxisPlacement.Right },
        { id: "unit", value: o.rightAxis.unit },
      ],
    });
  }
  return p;
}

export interface StatOptions {
  readonly title: string;
  readonly query: AnyQuerySpec;
  readonly description?: string;
  readonly unit?: string;
  readonly span?: number;
  /** Show the legend (label values) instead of the number: info signals. */
  readonly showName?: boolean;
  /** Show each series' legend beside its number (one value per label set, e.g. per verdict). */
  readonly valueAndName?: boolean;
  readonly yesNo?: boolean;
  readonly sparkline?: boolean;
  /** Reduce a range query: "lastNotNull" (default) or "mean" (rollout comparisons). */
  readonly calc?: "lastNotNull" | "mean";
}

export function statPanel(o: StatOptions, scope: PanelScope): stat.PanelBuilder {
  const p = new stat.PanelBuilder()
    .title(o.title)
    .description(o.description ?? describeQueries([o.query]))
    .datasource(DATASOURCE)
    .unit(o.unit ?? queryUnit(o.query))
    .span(o.span ?? 4)
    .height(4)
    .colorMode(common.BigValueColorMode.None)
    .graphMode(o.sparkline ? common.BigValueGraphMode.Area : common.BigValueGraphMode.None)
    .textMode(
      o.showName
        ? common.BigValueTextMode.Name
        : o.valueAndName
          ? common.BigValueTextMode.ValueAndName
          : common.BigValueTextMode.Value,
    )
    .reduceOptions(new common.ReduceDataOptionsBuilder().calcs([o.calc ?? "lastNotNull"]).values(false))
    .withTarget(target({ instant: !o.sparkline && !o.calc, ...o.query }, scope));
  if (o.yesNo) p.mappings(YES_NO);
  return p;
}

export interface TableColumn {
  readonly query: AnyQuerySpec;
  /** Column title for the value (omit to hide the value, e.g. info series). */
  readonly title?: string;
  /** Labels of the series shown as columns, with their titles. */
  readonly labels?: Readonly<Record<string, string>>;
  readonly unit?: string;
  readonly yesNo?: boolean;
}

/**
 * Instant-query table: one row per instance (or per label set of a console signal), each query's value
 * and labels as columns (merge). `links` go on the `linkField` column (default the instance).
 */
export function instantTable(
  o: {
    title: string;
    description?: string;
    columns: readonly TableColumn[];
    links: readonly LinkSpec[];
    linkField?: string;
    span?: number;
    height?: number;
  },
  scope: PanelScope,
): table.PanelBuilder {
  const p = new table.PanelBuilder()
    .title(o.title)
    .description(o.description ?? describeQueries(o.columns.map((c) => c.query)))
    .datasource(DATASOURCE)
    .span(o.span ?? 24)
    .height(o.height ?? 10)
    .cellHeight(common.TableCellHeight.Sm)
    .showHeader(true);
  const exclude: Record<string, boolean> = { Time: true };
  const rename: Record<string, string> = { instance: "Instance" };
  const order: Record<string, number> = { instance: 0 };
  let i = 1;
  for (const c of o.columns) {
    const ref = target({ ...c.query, instant: true, format: "table" }, scope);
    p.withTarget(ref);
    const valueField = `Value #${queryRefId(c.query, scope)}`;
    for (const [label, title] of Object.entries(c.labels ?? {})) {
      rename[label] = title;
      order[label] = i++;
    }
    if (c.title) {
      rename[valueField] = c.title;
      order[valueField] = i++;
      const props: dashboard.DynamicConfigValue[] = [{ id: "unit", value: c.unit ?? queryUnit(c.query) }];
      if (c.yesNo) props.push({ id: "mappings", value: YES_NO });
      p.overrideByName(valueField, props);
    } else {
      exclude[valueField] = true;
    }
  }
  p.withTransformation({ id: "merge", options: {} });
  p.withTransformation({
    id: "organize",
    options: { excludeByName: exclude, renameByName: rename, indexByName: order, includeByName: {} },
  });
  p.overrideByName(o.linkField ?? "instance", [{ id: "links", value: o.links.map(linkValue) }]);
  return p;
}

/** Range-query table with a sparkline per metric ("Time series to table", then joined by instance). */
export function sparklineTable(
  o: {
    title: string;
    description?: string;
    columns: readonly { query: QuerySpec; title: string; unit?: string }[];
    sortBy: SignalId;
    links: readonly LinkSpec[];
  },
  scope: PanelScope,
): table.PanelBuilder {
  const p = new table.PanelBuilder()
    .title(o.title)
    .description(
      o.description ??
        describe(
          o.columns.map((c) => c.query.signal),
          "Mean over the dashboard's time range, with its trend; sorted by the first column.",
        ),
    )
    .datasource(DATASOURCE)
    .span(24)
    .height(12)
    .cellHeight(common.TableCellHeight.Md)
    .showHeader(true);
  const perRef: Record<string, { stat: string }> = {};
  const sortTitle = o.columns.find((c) => c.query.signal === o.sortBy)?.title ?? "";
  for (const c of o.columns) {
    p.withTarget(target({ ...c.query, legend: "{{instance}}" }, scope));
    perRef[c.query.signal] = { stat: "mean" };
    p.overrideByName(`Trend #${c.query.signal}`, [
      { id: "displayName", value: c.title },
      { id: "unit", value: c.unit ?? unitOf(c.query.signal) },
      { id: "custom.cellOptions", value: { type: common.TableCellDisplayMode.Sparkline } },
    ]);
  }
  p.withTransformation({ id: "timeSeriesTable", options: perRef });
  p.withTransformation({ id: "joinByField", options: { byField: "instance", mode: "outer" } });
  p.sortBy([new common.TableSortByFieldStateBuilder().displayName(sortTitle).desc(true)]);
  p.overrideByName("instance", [
    { id: "displayName", value: "Instance" },
    { id: "links", value: o.links.map(linkValue) },
  ]);
  return p;
}

// ---- links ----

export interface LinkSpec {
  readonly title: string;
  readonly url: string;
  readonly targetBlank?: boolean;
}

const linkValue = (l: LinkSpec) => ({ title: l.title, url: l.url, targetBlank: l.targetBlank ?? false });

/** Data links from an instance cell/series to the instance dashboard and to the web app. */
export const instanceLinks: readonly LinkSpec[] = [
  {
    title: "Instance dashboard",
    url: `/d/${DASHBOARD_UIDS.instance}/untorn-instance?var-datasource=${v("datasource")}&var-instance=${v("__value.raw")}&${v("__url_time_range")}`,
  },
  {
    title: "Open in Untorn",
    url: `${v("webapp_url")}${WEBAPP_INSTANCE_PATH}${v("__value.raw:percentencode")}`,
    targetBlank: true,
  },
];

/** Data link from a rollout id cell to its page in the web app. */
export const rolloutLinks: readonly LinkSpec[] = [
  {
    title: "Open in Untorn",
    url: `${v("webapp_url")}${WEBAPP_ROLLOUT_PATH}${v("__value.raw:percentencode")}`,
    targetBlank: true,
  },
];

export function dashboardLinks(): dashboard.DashboardLinkBuilder[] {
  return [
    new dashboard.DashboardLinkBuilder("Untorn dashboards")
      .type(dashboard.DashboardLinkType.Dashboards)
      .tags([TAG])
      .asDropdown(true)
      .includeVars(true)
      .keepTime(true)
      .icon("external link")
      .tooltip("")
      .url("")
      .targetBlank(false),
  ];
}

// ---- variables ----

export function datasourceVariable(): dashboard.DatasourceVariableBuilder {
  return new dashboard.DatasourceVariableBuilder("datasource").label("Data source").type("prometheus");
}

export function clusterVariable(): dashboard.QueryVariableBuilder {
  return new dashboard.QueryVariableBuilder("cluster")
    .label("Cluster")
    .description("The `cluster` target label, when the scrape config sets one.")
    .datasource(DATASOURCE)
    .query(`label_values(${presenceSelector()}, cluster)`)
    .refresh(dashboard.VariableRefresh.OnTimeRangeChanged)
    .sort(dashboard.VariableSort.AlphabeticalAsc)
    .multi(true)
    .includeAll(true)
    .allValue(".*");
}

/** Instances of the selected clusters; "All" expands to their list, so panels need no cluster matcher. */
export function instanceVariable(
  name = "instance",
  label = "Instance",
  multi = true,
): dashboard.QueryVariableBuilder {
  const b = new dashboard.QueryVariableBuilder(name)
    .label(label)
    .datasource(DATASOURCE)
    .query(`label_values(${presenceSelector({ cluster: re("$cluster") })}, instance)`)
    .refresh(dashboard.VariableRefresh.OnTimeRangeChanged)
    .sort(dashboard.VariableSort.AlphabeticalAsc)
    .multi(multi)
    .includeAll(multi);
  return b;
}

export function webappVariable(): dashboard.TextBoxVariableBuilder {
  return new dashboard.TextBoxVariableBuilder("webapp_url")
    .label("Untorn web app")
    .description("Base URL of the Untorn web app, for the links to its instance pages.")
    .defaultValue(WEBAPP_DEFAULT_URL)
    .current({ text: WEBAPP_DEFAULT_URL, value: WEBAPP_DEFAULT_URL });
}

// ---- annotations ----

export function builtInAnnotations(): dashboard.AnnotationQueryBuilder {
  return new dashboard.AnnotationQueryBuilder()
    .name("Annotations & Alerts")
    .datasource({ type: "grafana", uid: "-- Grafana --" })
    .enable(true)
    .hide(true)
    .iconColor("rgba(0, 211, 255, 1)")
    .type("dashboard")
    .builtIn(1);
}

/** Rollout steps and notes posted to Grafana with the tag "untorn" (the web app and CLI use it). */
export function untornTagAnnotations(): dashboard.AnnotationQueryBuilder {
  return new dashboard.AnnotationQueryBuilder()
    .name("Untorn rollouts")
    .datasource({ type: "grafana", uid: "-- Grafana --" })
    .enable(true)
    .iconColor("purple")
    .target({
      // Grafana's built-in "filter by tags" target; not a datasource query.
      build: () => ({
        type: "tags",
        tags: [TAG],
        limit: 100,
        matchAny: true,
        _implementsDataqueryVariant() {},
      }),
    });
}

export function eventAnnotation(
  signal: "restarts" | "doublewrite_mode_changes",
  scope: PanelScope,
  color: string,
): dashboard.AnnotationQueryBuilder {
  const s = signals[signal];
  return new dashboard.AnnotationQueryBuilder()
    .name(`${scope.legendPrefix}${s.title}`)
    .datasource(DATASOURCE)
    .enable(true)
    .iconColor(color)
    .expr(s.expr({ selector: scope.selector, window: "5m" }))
    .step("60s")
    .titleFormat(s.title)
    .textFormat("{{instance}}");
}

// ---- rows and dashboards ----

export type PanelLike =
  | timeseries.PanelBuilder
  | stat.PanelBuilder
  | table.PanelBuilder
  | { readonly row: string };

export const row = (title: string): PanelLike => ({ row: title });

export interface DashboardSpec {
  readonly uid: string;
  readonly title: string;
  readonly description: string;
  readonly variables: readonly cog.Builder<dashboard.VariableModel>[];
  readonly annotations: readonly dashboard.AnnotationQueryBuilder[];
  readonly panels: readonly PanelLike[];
  readonly time?: { from: string; to: string };
}

/** A dashboard is a list of panels on house defaults; ids are assigned in order. */
export function buildDashboard(spec: DashboardSpec): dashboard.Dashboard {
  const b = new dashboard.DashboardBuilder(spec.title)
    .uid(spec.uid)
    .description(spec.description)
    .tags([TAG])
    .editable()
    .tooltip(dashboard.DashboardCursorSync.Crosshair)
    .refresh("1m")
    .time(spec.time ?? { from: "now-6h", to: "now" })
    .timezone("browser")
    .links(dashboardLinks());
  for (const variable of spec.variables) b.withVariable(variable);
  for (const a of spec.annotations) b.annotation(a);
  for (const p of spec.panels) {
    if ("row" in p) b.withRow(new dashboard.RowBuilder(p.row));
    else b.withPanel(p);
  }
  const built = b.build();
  let id = 1;
  for (const panel of built.panels ?? []) panel.id = id++;
  return built;
}
