/**
 * Every PromQL query the dashboards send, named, with the signal it renders and where that signal has
 * data; plus the recording rules. For live checks against a real Prometheus: resolve the Grafana
 * variables with resolveQuery(), run it, and expect data where expectsData() says so.
 */

import type { ConsoleSignalId } from "@untorn/catalog/console-signals";
import { instant } from "@untorn/catalog/promql";
import { rateWindowSeconds, SCRAPE_INTERVAL_SECONDS } from "@untorn/catalog/rate-window";
import { recordingRules } from "@untorn/catalog/rules";
import { type Needs, RULE_WINDOW, type SignalId, signals } from "@untorn/catalog/signals";
import { formatDuration } from "@untorn/vocabulary/duration";
import type { Flavor } from "@untorn/vocabulary/words";
import { dashboards } from "./render.js";
import {
  type CheckedDashboard,
  consoleSignalOfRefId,
  flatPanels,
  signalOfRefId,
  substituteVariables,
} from "./validate.js";

export interface PanelQuery {
  /** "<dashboard uid> / <panel title> / <refId>": unique. */
  readonly name: string;
  readonly dashboard: string;
  readonly panel: string;
  readonly refId: string;
  /** The catalog signal, or for a `console` query the console signal. */
  readonly signal: SignalId | ConsoleSignalId;
  /** As in the dashboard JSON, with Grafana variables ($instance, $__rate_interval, ...). */
  readonly expr: string;
  readonly instant: boolean;
  readonly needs: Needs;
  /**
   * Annotation queries only return series when their event happens; console queries read the Untorn
   * console's own /metrics, not a database's exporters.
   */
  readonly kind: "panel" | "annotation" | "console";
}

/** Where a console signal has data: only where Prometheus scrapes the console. */
const CONSOLE_NEEDS: Needs = { console: true };

function fromDashboard(d: CheckedDashboard): PanelQuery[] {
  const out: PanelQuery[] = [];
  for (const p of flatPanels(d)) {
    for (const t of p.targets) {
      const signal = signalOfRefId(t.refId);
      const consoleSignal = signal ? undefined : consoleSignalOfRefId(t.refId);
      if (!signal && !consoleSignal)
        throw new Error(`${d.uid} / ${p.title}: refId ${t.refId} names no signal`);
      out.push({
        name: `${d.uid} / ${p.title} / ${t.refId}`,
        dashboard: d.uid,
        panel: p.title,
        refId: t.refId,
        signal: (signal ?? consoleSignal)!,
        expr: t.expr,
        instant: t.instant === true,
        needs: signal ? signals[signal].needs : CONSOLE_NEEDS,
        kind: signal ? "panel" : "console",
      });
    }
  }
  for (const a of d.annotations.list) {
    if (!a.expr) continue;
    const signal = (Object.keys(signals) as SignalId[]).find((id) => a.name.endsWith(signals[id].title));
    if (!signal) throw new Error(`${d.uid}: annotation ${a.name} names no signal`);
    out.push({
      name: `${d.uid} / annotation ${a.name}`,
      dashboard: d.uid,
      panel: `annotation ${a.name}`,
      refId: a.name,
      signal,
      expr: a.expr,
      instant: false,
      needs: signals[signal].needs,
      kind: "annotation",
    });
  }
  return out;
}

/** Every query of the three dashboards, in panel order (console queries among them). */
export function panelQueries(): PanelQuery[] {
  return [...dashboards().values()].flatMap((d) => fromDashboard(d as unknown as CheckedDashboard));
}

export interface QueryVariables {
  /** Instance name(s) for $instance; several become a regex alternation. */
  readonly instance: string | readonly string[];
  readonly instanceB?: string;
  /**
   * For $__rate_interval; default the catalog's rate-window rule at a step of one scrape interval (what
   * Grafana computes too: max(4 × scrape, step + scrape)).
   */
  readonly rateInterval?: string;
  readonly shiftB?: string;
}

/** Regex-escaped inside a PromQL string literal: the backslash itself is doubled, as Grafana does. */
const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\\\$&");

/** The query as Grafana would send it, for the given instance(s). */
export function resolveQuery(expr: string, vars: QueryVariables): string {
  const list = typeof vars.instance === "string" ? [vars.instance] : vars.instance;
  const instance = list.map(escapeRegex).join("|");
  return substituteVariables(expr, {
    __rate_interval: vars.rateInterval ?? formatDuration(rateWindowSeconds(SCRAPE_INTERVAL_SECONDS) * 1000),
    __interval: `${SCRAPE_INTERVAL_SECONDS}s`,
    __range: "1h",
    instance: list.length > 1 ? `(${instance})` : instance,
    instance_b: escapeRegex(vars.instanceB ?? list[0] ?? ""),
    cluster: ".*",
    shift_b: vars.shiftB ?? "1d",
    datasource: "",
  });
}

/** What a live stack offers; expectsData() compares it with a signal's needs. */
export interface LiveEnvironment {
  readonly flavor: Flavor;
  /** "10.11.6", "8.0.36", ... */
  readonly version: string;
  readonly performanceSchema: boolean;
  readonly mutexInstrument: boolean;
  readonly innodbMetricsDblwr: boolean;
  /** untorn-exporter runs beside the server (or node_exporter is scraped for the instance). */
  readonly hostStorage: boolean;
  /** The datadir's device exposes atomic write limits (Linux 6.11+). */
  readonly atomicWriteAttributes: boolean;
  /** The instance is a replica (replication signals have data only there). Default false. */
  readonly replica?: boolean;
  /** Prometheus scrapes the Untorn console's /metrics (the rollout row). Default false. */
  readonly console?: boolean;
}

function atLeast(version: string, min: string): boolean {
  const a = version.split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0);
  const b = min.split(".").map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < b.length; i++) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  }
  return true;
}

/** Whether a query for a signal with these needs must return data on this stack (under write load). */
export function expectsData(needs: Needs, env: LiveEnvironment): boolean {
  if (needs.event) return false;
  if (needs.flavors && !needs.flavors.includes(env.flavor)) return false;
  const min = needs.minVersion?.[env.flavor];
  if (min && !atLeast(env.version, min)) return false;
  if (needs.performanceSchema && !env.performanceSchema) return false;
  if (needs.innodbMetricsDblwr && !env.innodbMetricsDblwr) return false;
  if (needs.hostStorage && !env.hostStorage) return false;
  if (needs.atomicWriteAttributes && !env.atomicWriteAttributes) return false;
  if (needs.replica && !env.replica) return false;
  if (needs.console && !env.console) return false;
  return true;
}

export interface RuleQuery {
  readonly name: string;
  readonly expr: string;
  readonly needs: Needs;
  /** The rule returns nothing until Prometheus holds this much history (the spike baselines: 7h). */
  readonly minHistory: string | undefined;
}

/** Every recording rule, selected for one instance, to check each returns data. */
export const recordingRuleQueries = (instance: string): RuleQuery[] =>
  recordingRules.map((r) => ({
    name: r.record,
    expr: instant({ selector: { instance }, window: RULE_WINDOW, offset: undefined }, r.record),
    needs: r.needs,
    minHistory: r.minHistory,
  }));
