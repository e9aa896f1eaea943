/** App URLs. Instance labels (host:port, /probe targets) go into one path segment, percent-encoded. */

export const instanceHref = (instance: string): string => `/instances/${encodeURIComponent(instance)}`;

export const ruleDocsHref = (docsPath: string): string => `/${docsPath.replace(/\.md$/, "")}`;

/** Grafana's instance dashboard (uid untorn-instance) for one instance over a time range (Unix seconds). */
export function grafanaInstanceHref(base: string, instance: string, from?: number, to?: number): string {
  const p = new URLSearchParams({ "var-instance": instance });
  if (from !== undefined && to !== undefined) {
    p.set("from", String(Math.round(from * 1000)));
    p.set("to", String(Math.round(to * 1000)));
  }
  return `${base}/d/untorn-instance/untorn-instance?${p}`;
}
