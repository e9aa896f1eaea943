/**
 * Validation of the generated Grafana files, since Grafana itself cannot run here:
 * - zod schemas mirroring Grafana's documented formats: the dashboard JSON model (the fields of
 *   @grafana/schema's Dashboard that these dashboards use; a compile-time check below keeps the two
 *   compatible) and the file-provisioning formats for datasources, dashboard providers, alert rules,
 *   contact points and notification policies (the rule fields checked against the SDK's alerting types);
 * - structural checks Grafana would only reveal at run time: unique panel ids, a 24-column grid without
 *   overlaps, every $variable defined, every query a parseable catalog signal (or console signal, for
 *   the console's own rollout metrics) whose series names are the signal's own, alert conditions that
 *   name existing queries, references between provisioning files.
 * Rendering in a browser, and how Grafana's own migrations treat the JSON, are not checked.
 */

import type * as alerting from "@grafana/grafana-foundation-sdk/alerting";
import type { Dashboard as SchemaDashboard } from "@grafana/schema";
import { type ConsoleSignalId, consoleSignals, isConsoleSignalId } from "@untorn/catalog/console-signals";
import { parsePromql } from "@untorn/catalog/promql-check";
import { type SignalId, signals } from "@untorn/catalog/signals";
import { DURATION_HINT, isDuration } from "@untorn/vocabulary/duration";
import { z } from "zod";
import { DATASOURCE, DATASOURCE_UID, REF_SEPARATOR } from "./house.js";

// ---- dashboard JSON model ----

const uid = z.string().regex(/^[a-zA-Z0-9_-]{1,40}$/, "uid: up to 40 of [a-zA-Z0-9_-]");
const datasourceRef = z.looseObject({ type: z.string().optional(), uid: z.string().optional() });
const gridPos = z.object({
  h: z.number().int().positive(),
  w: z.number().int().min(1).max(24),
  x: z.number().int().min(0).max(23),
  y: z.number().int().min(0),
  static: z.boolean().optional(),
});
const promTarget = z.looseObject({
  refId: z.string().min(1),
  expr: z.string().min(1),
  datasource: datasourceRef,
  instant: z.boolean().optional(),
  range: z.boolean().optional(),
  legendFormat: z.string().optional(),
  format: z.enum(["time_series", "table", "heatmap"]).optional(),
});
const dynamicConfigValue = z.looseObject({ id: z.string().min(1), value: z.unknown().optional() });
const fieldConfig = z.looseObject({
  defaults: z.looseObject({
    unit: z.string().optional(),
    min: z.number().optional(),
    max: z.number().optional(),
  }),
  overrides: z.array(
    z.looseObject({
      matcher: z.looseObject({ id: z.string().min(1), options: z.unknown().optional() }),
      properties: z.array(dynamicConfigValue),
    }),
  ),
});

/** Core panel plugins and transformations the generator uses (ids from Grafana's registry). */
export const PANEL_TYPES = ["timeseries", "stat", "table"] as const;
export const TRANSFORMATIONS = ["merge", "organize", "timeSeriesTable", "joinByField"] as const;

const panel = z.looseObject({
  type: z.enum(PANEL_TYPES),
  id: z.number().int().positive(),
  title: z.string().min(1),
  description: z.string().optional(),
  datasource: datasourceRef.optional(),
  gridPos,
  targets: z.array(promTarget).min(1),
  fieldConfig,
  options: z.record(z.string(), z.unknown()),
  transformations: z
    .array(
      z.looseObject({ id: z.enum(TRANSFORMATIONS), options: z.unknown(), disabled: z.boolean().optional() }),
    )
    .optional(),
  timeShift: z.string().optional(),
  timeFrom: z.string().optional(),
});
const rowPanel = z.looseObject({
  type: z.literal("row"),
  id: z.number().int().positive(),
  collapsed: z.boolean(),
  title: z.string().min(1),
  gridPos,
  panels: z.array(panel),
});
const VARIABLE_TYPES = ["query", "adhoc", "constant", "datasource", "interval", "textbox", "custom"] as const;
const variable = z.looseObject({
  type: z.enum(VARIABLE_TYPES),
  name: z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/),
  label: z.string().optional(),
  query: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
  datasource: datasourceRef.optional(),
  multi: z.boolean().optional(),
  includeAll: z.boolean().optional(),
  allValue: z.string().optional(),
});
const annotation = z.looseObject({
  name: z.string().min(1),
  datasource: datasourceRef,
  enable: z.boolean(),
  iconColor: z.string().min(1),
  hide: z.boolean().optional(),
  expr: z.string().optional(),
  step: z.string().optional(),
});
const dashboardLink = z.looseObject({
  title: z.string().min(1),
  type: z.enum(["link", "dashboards"]),
  asDropdown: z.boolean(),
  icon: z.string(),
  includeVars: z.boolean(),
  keepTime: z.boolean(),
  tags: z.array(z.string()),
  targetBlank: z.boolean(),
  tooltip: z.string(),
  url: z.string(),
});

export const dashboardSchema = z.looseObject({
  uid,
  title: z.string().min(1),
  description: z.string().optional(),
  schemaVersion: z.number().int().min(36),
  editable: z.boolean(),
  tags: z.array(z.string()),
  time: z.object({ from: z.string(), to: z.string() }),
  timezone: z.string(),
  refresh: z.string(),
  graphTooltip: z.union([z.literal(0), z.literal(1), z.literal(2)]),
  templating: z.object({ list: z.array(variable) }),
  annotations: z.object({ list: z.array(annotation) }),
  links: z.array(dashboardLink),
  panels: z.array(z.union([rowPanel, panel])),
});

export type CheckedDashboard = z.infer<typeof dashboardSchema>;

// Compile-time: what the schema accepts must be a Grafana Dashboard as @grafana/schema types it.
export const asGrafanaDashboard = (d: CheckedDashboard): SchemaDashboard => d;

// ---- structural checks ----

/** Grafana's global variables and data-link variables the dashboards use. */
const GRAFANA_GLOBALS = new Set([
  "__rate_interval",
  "__interval",
  "__range",
  "__url_time_range",
  "__value.raw",
  "__value.raw:percentencode",
]);

/** $name, ${name} and ${name:format} references in a string. */
export function variableRefs(text: string): string[] {
  return [...text.matchAll(/\$\{([^}]+)\}|\$([a-zA-Z_][a-zA-Z0-9_]*)/g)].map((m) => (m[1] ?? m[2]) as string);
}

/** Example values for the variables, to turn panel queries into plain PromQL. */
export const EXAMPLE_VARIABLES: Readonly<Record<string, string>> = {
  __rate_interval: "1m",
  __interval: "30s",
  __range: "6h",
  instance: "db1",
  instance_b: "db2",
  cluster: ".*",
  datasource: DATASOURCE_UID,
  shift_b: "1d",
};

export function substituteVariables(
  text: string,
  values: Readonly<Record<string, string>> = EXAMPLE_VARIABLES,
): string {
  return text.replace(
    /\$\{([a-zA-Z_][a-zA-Z0-9_]*)(?::[^}]*)?\}|\$([a-zA-Z_][a-zA-Z0-9_]*)/g,
    (all, braced, bare) => {
      const name = (braced ?? bare) as string;
      const value = values[name];
      if (value === undefined) throw new Error(`no example value for ${all}`);
      return value;
    },
  );
}

export type AnyPanel = z.infer<typeof panel>;

export function flatPanels(d: CheckedDashboard): AnyPanel[] {
  return d.panels.flatMap((p) =>
    p.type === "row" ? (p as z.infer<typeof rowPanel>).panels : [p as AnyPanel],
  );
}

/** The catalog signal a target's refId names (refId = signal id, optionally + "__" + side). */
export function signalOfRefId(refId: string): SignalId | undefined {
  const id = refId.split(REF_SEPARATOR)[0] as SignalId;
  return id in signals ? id : undefined;
}

/** The console signal a target's refId names (refId = console signal id, optionally + "__" + suffix). */
export function consoleSignalOfRefId(refId: string): ConsoleSignalId | undefined {
  const id = refId.split(REF_SEPARATOR)[0] ?? "";
  return isConsoleSignalId(id) ? id : undefined;
}

/** Series names a console signal may read: its console metrics' (a histogram's _bucket, _sum, _count). */
function consoleSeriesNames(id: ConsoleSignalId): string[] {
  return consoleSignals[id].metrics.flatMap((m) =>
    m.type === "histogram" ? [`${m.name}_bucket`, `${m.name}_sum`, `${m.name}_count`] : [m.name],
  );
}

export function checkDashboard(d: CheckedDashboard, knownUids: readonly string[]): string[] {
  const problems: string[] = [];
  const defined = new Set(d.templating.list.map((v) => v.name));
  const checkVars = (where: string, text: string) => {
    for (const name of variableRefs(text)) {
      if (!defined.has(name.split(":")[0] as string) && !GRAFANA_GLOBALS.has(name)) {
        problems.push(`${where}: undefined variable $${name}`);
      }
    }
  };

  const all = [
    ...d.panels,
    ...d.panels.flatMap((p) => (p.type === "row" ? (p as { panels: AnyPanel[] }).panels : [])),
  ];
  const ids = all.map((p) => p.id);
  if (new Set(ids).size !== ids.length) problems.push("panel ids are not unique");

  // Grid: inside 24 columns, no two panels overlapping.
  const boxes = all.map((p) => ({ title: p.title, ...p.gridPos }));
  for (const [i, a] of boxes.entries()) {
    if (a.x + a.w > 24) problems.push(`${a.title}: wider than the 24-column grid`);
    for (const b of boxes.slice(i + 1)) {
      const overlap = a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
      if (overlap) problems.push(`${a.title} overlaps ${b.title}`);
    }
  }

  if (!defined.has("datasource")) problems.push("no datasource variable");
  for (const v of d.templating.list) {
    if (typeof v.query === "string") checkVars(`variable ${v.name}`, v.query);
  }
  for (const a of d.annotations.list) {
    if (a.expr) {
      checkVars(`annotation ${a.name}`, a.expr);
      const parsed = parsePromql(substituteVariables(a.expr));
      if (parsed.errors.length) problems.push(`annotation ${a.name}: PromQL syntax error`);
    }
  }

  for (const p of flatPanels(d)) {
    checkVars(p.title, p.title);
    if (p.timeShift) checkVars(`${p.title} timeShift`, p.timeShift);
    if (p.datasource?.uid !== DATASOURCE.uid)
      problems.push(`${p.title}: panel datasource is not $datasource`);
    const refIds = p.targets.map((t) => t.refId);
    if (new Set(refIds).size !== refIds.length) problems.push(`${p.title}: duplicate refIds`);
    for (const t of p.targets) {
      const consoleId = consoleSignalOfRefId(t.refId);
      if (!signalOfRefId(t.refId) && !consoleId)
        problems.push(`${p.title}: refId ${t.refId} names no catalog signal`);
      if (t.datasource.uid !== DATASOURCE.uid) problems.push(`${p.title}/${t.refId}: target datasource`);
      checkVars(`${p.title}/${t.refId}`, t.expr);
      const parsed = parsePromql(substituteVariables(t.expr));
      if (parsed.errors.length) problems.push(`${p.title}/${t.refId}: PromQL syntax error`);
      if (consoleId) {
        const own = consoleSeriesNames(consoleId);
        for (const name of parsed.metricNames.filter((n) => !own.includes(n)))
          problems.push(`${p.title}/${t.refId}: reads ${name}, not a series of console signal ${consoleId}`);
      }
      if (t.legendFormat) checkVars(`${p.title}/${t.refId} legend`, t.legendFormat);
    }
    for (const o of p.fieldConfig.overrides) {
      for (const prop of o.properties) {
        if (prop.id === "links") {
          for (const link of prop.value as { url: string }[]) {
            checkVars(`${p.title} link`, link.url);
            const target = /\/d\/([^/?]+)/.exec(link.url)?.[1];
            if (target && !knownUids.includes(target))
              problems.push(`${p.title}: link to unknown dashboard ${target}`);
          }
        }
      }
    }
    const unit = p.fieldConfig.defaults.unit;
    if (unit !== undefined && !KNOWN_UNITS.has(unit) && !unit.startsWith("suffix:")) {
      problems.push(`${p.title}: unknown unit ${unit}`);
    }
  }
  for (const link of d.links) {
    if (link.type === "dashboards" && !d.tags.some((t) => link.tags.includes(t))) {
      problems.push(`dashboard link ${link.title} does not list this dashboard's own tags`);
    }
  }
  return problems;
}

/** Grafana unit ids used here (Grafana's valueFormats registry). */
const KNOWN_UNITS = new Set([
  "none",
  "short",
  "percentunit",
  "bytes",
  "binBps",
  "Bps",
  "s",
  "ms",
  "ops",
  "iops",
]);

// ---- provisioning files ----

const duration = z.string().refine((s) => s !== "0" && isDuration(s), `not a duration: ${DURATION_HINT}`);
const stringMap = z.record(z.string(), z.string());

const ruleQuery = z.object({
  refId: z.string().min(1),
  datasourceUid: z.string().min(1),
  relativeTimeRange: z.object({ from: z.number().int().min(0), to: z.number().int().min(0) }),
  model: z.looseObject({ refId: z.string().min(1) }),
});
const alertRule = z.object({
  uid,
  title: z.string().min(1),
  condition: z.string().min(1),
  data: z.array(ruleQuery).min(1),
  noDataState: z.enum(["Alerting", "NoData", "OK", "KeepLast"]),
  execErrState: z.enum(["Alerting", "Error", "OK", "KeepLast"]),
  for: duration,
  annotations: stringMap,
  labels: stringMap,
  isPaused: z.boolean(),
  dashboardUid: z.string().optional(),
  panelId: z.number().int().optional(),
});
export const alertRuleFileSchema = z.object({
  apiVersion: z.literal(1),
  groups: z.array(
    z.object({
      orgId: z.number().int().positive(),
      name: z.string().min(1),
      folder: z.string().min(1),
      interval: duration,
      rules: z.array(alertRule).min(1),
    }),
  ),
});

// Compile-time: the rule fields shared with the alerting API have the SDK's types.
type ProvisionedRule = z.infer<typeof alertRule>;
export const asSdkRuleFields = (
  r: ProvisionedRule,
): Pick<
  alerting.Rule,
  | "uid"
  | "title"
  | "condition"
  | "noDataState"
  | "execErrState"
  | "for"
  | "annotations"
  | "labels"
  | "isPaused"
> => r;

export const datasourceFileSchema = z.object({
  apiVersion: z.literal(1),
  datasources: z.array(
    z.looseObject({
      name: z.string().min(1),
      uid,
      type: z.string().min(1),
      access: z.enum(["proxy", "direct"]),
      url: z.url(),
      isDefault: z.boolean().optional(),
      jsonData: z.record(z.string(), z.unknown()).optional(),
    }),
  ),
});

export const dashboardProviderFileSchema = z.object({
  apiVersion: z.literal(1),
  providers: z.array(
    z.looseObject({
      name: z.string().min(1),
      orgId: z.number().int().positive(),
      folder: z.string(),
      type: z.literal("file"),
      options: z.looseObject({ path: z.string().startsWith("/") }),
    }),
  ),
});

const CONTACT_POINT_TYPES: readonly alerting.ContactPoint["type"][] = [
  "alertmanager",
  "dingding",
  "discord",
  "email",
  "googlechat",
  "kafka",
  "line",
  "opsgenie",
  "pagerduty",
  "pushover",
  "sensugo",
  "slack",
  "teams",
  "telegram",
  "threema",
  "victorops",
  "webhook",
  "wecom",
];

export const contactPointFileSchema = z.object({
  apiVersion: z.literal(1),
  contactPoints: z.array(
    z.object({
      orgId: z.number().int().positive(),
      name: z.string().min(1),
      receivers: z
        .array(
          z.object({
            uid,
            type: z.enum(CONTACT_POINT_TYPES as [string, ...string[]]),
            settings: z.record(z.string(), z.unknown()),
            disableResolveMessage: z.boolean().optional(),
          }),
        )
        .min(1),
    }),
  ),
});

const route: z.ZodType<Route> = z.lazy(() =>
  z.object({
    receiver: z.string().min(1).optional(),
    group_by: z.array(z.string()).optional(),
    object_matchers: z.array(z.tuple([z.string(), z.enum(["=", "!=", "=~", "!~"]), z.string()])).optional(),
    group_wait: duration.optional(),
    group_interval: duration.optional(),
    repeat_interval: duration.optional(),
    routes: z.array(route).optional(),
  }),
);
interface Route {
  receiver?: string | undefined;
  group_by?: string[] | undefined;
  object_matchers?: [string, "=" | "!=" | "=~" | "!~", string][] | undefined;
  group_wait?: string | undefined;
  group_interval?: string | undefined;
  repeat_interval?: string | undefined;
  routes?: Route[] | undefined;
}

export const policyFileSchema = z.object({
  apiVersion: z.literal(1),
  policies: z.array(z.object({ orgId: z.number().int().positive() }).and(route)),
});

/** Conditions name existing queries, queries use the provisioned datasource or expressions, no duplicates. */
export function checkAlertRules(
  file: z.infer<typeof alertRuleFileSchema>,
  datasourceUids: readonly string[],
): string[] {
  const problems: string[] = [];
  const uids = new Set<string>();
  for (const g of file.groups) {
    const titles = new Set<string>();
    for (const r of g.rules) {
      if (uids.has(r.uid)) problems.push(`duplicate rule uid ${r.uid}`);
      uids.add(r.uid);
      if (titles.has(r.title)) problems.push(`duplicate title ${r.title} in folder ${g.folder}`);
      titles.add(r.title);
      const refIds = r.data.map((q) => q.refId);
      if (!refIds.includes(r.condition)) problems.push(`${r.title}: condition ${r.condition} names no query`);
      for (const q of r.data) {
        if (q.model.refId !== q.refId) problems.push(`${r.title}/${q.refId}: model refId differs`);
        if (q.datasourceUid === "__expr__") {
          const expression = String(q.model["expression"] ?? "");
          for (const ref of variableRefs(expression)) {
            if (!refIds.includes(ref))
              problems.push(`${r.title}/${q.refId}: expression reads unknown $${ref}`);
          }
        } else {
          if (!datasourceUids.includes(q.datasourceUid))
            problems.push(`${r.title}/${q.refId}: unknown datasource`);
          const expr = String(q.model["expr"] ?? "");
          if (!expr || parsePromql(expr).errors.length)
            problems.push(`${r.title}/${q.refId}: PromQL does not parse`);
        }
      }
      if (!r.annotations["runbook_url"]) problems.push(`${r.title}: no runbook_url`);
      if (/\$value\b/.test(Object.values(r.annotations).join(" "))) {
        problems.push(`${r.title}: Prometheus-only $value in a Grafana template`);
      }
    }
  }
  return problems;
}
