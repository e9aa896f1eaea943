/** Minimal parser for the Prometheus text format, enough for assertions in tests. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export function parseExposition(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) throw new Error(`unparsable exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[l[1]!] = l[2]!.replace(/\\"/g, '"').replace(/\\n/g, "\n").replace(/\\\\/g, "\\");
    }
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** The value of the one sample of `name` whose labels include `labels`; undefined when absent. */
export function sampleValue(
  text: string | Sample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const samples = typeof text === "string" ? parseExposition(text) : text;
  const hits = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (hits.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} matches ${hits.length} samples`);
  return hits[0]?.value;
}

/** Like sampleValue, but the sample must exist. */
export function mustValue(
  text: string | Sample[],
  name: string,
  labels: Record<string, string> = {},
): number {
  const v = sampleValue(text, name, labels);
  if (v === undefined) throw new Error(`no sample ${name} ${JSON.stringify(labels)}`);
  return v;
}
