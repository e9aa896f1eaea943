/**
 * The Prometheus text exposition format (version 0.0.4): `# HELP`, `# TYPE`, then one line per sample,
 * HELP escaping `\` and line feeds, label values also `"`. Small on purpose: the console exposes a few
 * gauges and one histogram built fresh from the store per scrape (prom-client is the exporter's, not
 * a dependency of the console).
 */
import type { ConsoleMetricDef } from "@untorn/catalog/console-metrics";

export const EXPOSITION_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export interface Sample {
  readonly labels?: Readonly<Record<string, string>>;
  readonly value: number;
  /** `_bucket`, `_sum`, `_count` for a histogram's lines. */
  readonly suffix?: string;
}

export interface Family {
  readonly def: ConsoleMetricDef;
  readonly samples: readonly Sample[];
}

const escapeHelp = (s: string) => s.replaceAll("\\", "\\\\").replaceAll("\n", "\\n");
const escapeLabel = (s: string) => s.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");

/** A sample value as Prometheus writes it: +Inf, -Inf, NaN, or the shortest decimal. */
export function formatValue(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Number.POSITIVE_INFINITY) return "+Inf";
  if (v === Number.NEGATIVE_INFINITY) return "-Inf";
  return String(v);
}

function line(name: string, s: Sample): string {
  const labels = Object.entries(s.labels ?? {});
  const l = labels.length ? `{${labels.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(",")}}` : "";
  return `${name}${s.suffix ?? ""}${l} ${formatValue(s.value)}`;
}

/** The families as one exposition, ending with a line feed. */
export function exposition(families: readonly Family[]): string {
  const out: string[] = [];
  for (const f of families) {
    out.push(`# HELP ${f.def.name} ${escapeHelp(f.def.help)}`, `# TYPE ${f.def.name} ${f.def.type}`);
    for (const s of f.samples) out.push(line(f.def.name, s));
  }
  return `${out.join("\n")}\n`;
}

/** A histogram's lines over `values`: cumulative `_bucket{le}` per bound and `+Inf`, `_sum`, `_count`. */
export function histogramSamples(values: readonly number[], buckets: readonly number[]): Sample[] {
  const out: Sample[] = buckets.map((le) => ({
    suffix: "_bucket",
    labels: { le: formatValue(le) },
    value: values.filter((v) => v <= le).length,
  }));
  out.push({ suffix: "_bucket", labels: { le: "+Inf" }, value: values.length });
  out.push({ suffix: "_sum", value: values.reduce((a, b) => a + b, 0) });
  out.push({ suffix: "_count", value: values.length });
  return out;
}
