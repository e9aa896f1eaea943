/**
 * Named signals: every PromQL expression the dashboards, alerts, CLI and web app use.
 *
 * A signal is built from components (one counter rate or gauge each). A component reads untorn-exporter's
 * series and, where one exists, has a fallback on mysqld_exporter / node_exporter series. Rendering:
 *
 *   signals.doublewrite_pages_per_second.expr({ selector: { instance: "db1" }, window: "5m" })
 *
 * - Every result has one series per `instance` (`sum by (instance)` / `max by (instance)`), plus `class`
 *   for per-file-class signals, so a fleet query is one request whatever the fleet size. The selector
 *   narrows it to one instance (or a regex, a cluster, ...); it is ANDed into every series selector.
 * - `window` is the rate() range (default 5m): a PromQL duration or a Grafana variable such as
 *   `$__rate_interval`. Gauge signals read the latest sample and ignore it.
 * - `offset` shifts every selector back in time (before/after comparisons).
 * - `source`: "untorn" (untorn-exporter only), "fallback" (other exporters only; throws when a signal
 *   has none) or "any" (default): per component, untorn-exporter's series where the instance has them,
 *   else the fallback's.
 * - `recorded: true` reads the recording rules of rules.ts in place of the raw rate where the signal or
 *   its components have one and the window is the rules' 5m (source "any" only): cheap fleet queries.
 * - `classes` restricts per-class signals to some file classes.
 *
 * Layout: `signals/component.ts` (options, component model, builders), `signals/components.ts` (every
 * component), `signals/signal.ts` (the signal model), and one file per signal group (`signals/<group>.ts`);
 * this module assembles the groups in a fixed order.
 */

import { directSpecs as config } from "./signals/config.js";
import { compositeSpecs as device } from "./signals/device.js";
import { compositeSpecs as doublewrite } from "./signals/doublewrite.js";
import { compositeSpecs as efficiency } from "./signals/efficiency.js";
import { directSpecs as events } from "./signals/events.js";
import { compositeSpecs as fileIo } from "./signals/file-io.js";
import { directSpecs as health } from "./signals/health.js";
import { compositeSpecs as pressure } from "./signals/pressure.js";
import { type DirectSpec, makeDirect, makeSignal, type Signal, type SignalSpec } from "./signals/signal.js";
import { directSpecs as storage, compositeSpecs as storageComposite } from "./signals/storage.js";
import { compositeSpecs as throughput } from "./signals/throughput.js";

export {
  type Component,
  DEFAULT_WINDOW,
  type ExprOptions,
  RULE_WINDOW,
  type SignalScope,
  type Source,
} from "./signals/component.js";
export {
  type ComponentKey,
  componentExpr,
  componentList,
  components,
  PRESENCE_METRICS,
  presenceSelector,
} from "./signals/components.js";
export {
  describeNeeds,
  type Needs,
  type Signal,
  type SignalGroup,
  type SignalUnit,
} from "./signals/signal.js";

/**
 * The order of signalList (docs/metrics.md lists each group's signals in it): the signals built from
 * components first, then the direct ones (info metrics, gauges read as is, one-off selectors).
 */
const composite = {
  ...throughput,
  ...doublewrite,
  ...fileIo,
  ...efficiency,
  ...device,
  ...pressure,
  ...storageComposite,
} as const satisfies Record<string, SignalSpec>;

const direct = {
  ...config,
  ...storage,
  ...health,
  ...events,
} as const satisfies Record<string, DirectSpec>;

export type SignalId = keyof typeof composite | keyof typeof direct;

function buildAll(): Record<SignalId, Signal> {
  const out: Partial<Record<SignalId, Signal>> = {};
  for (const [id, spec] of Object.entries(composite))
    out[id as SignalId] = makeSignal(id, spec as SignalSpec);
  for (const [id, spec] of Object.entries(direct)) out[id as SignalId] = makeDirect(id, spec as DirectSpec);
  return out as Record<SignalId, Signal>;
}

export const signals: Readonly<Record<SignalId, Signal>> = buildAll();

export const signalList: readonly Signal[] = Object.values(signals);

export function signal(id: SignalId): Signal {
  return signals[id];
}
