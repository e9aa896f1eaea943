/**
 * What each subcommand does, as --help lists it: kept apart from the commands so that `untorn --help`
 * lists them without loading any (each command loads the advisor, the store or the rollout engine).
 */
export const DESCRIPTIONS = {
  fleet:
    "Rank every instance by expected benefit × confidence: verdict, doublewrite pages per flushed page, gate, top finding.",
  instance: "One instance: profile, verdict with evidence, findings with the exact change, safety gate.",
  advise:
    "Advise offline from InstanceFacts JSON (docs/schemas/advise-input.schema.json): one object or an array.",
  record: "Record the fleet and instance facts and chart series over a span into a replay file (gzip JSON).",
  compare:
    "Before/after comparison of one instance (optionally against untouched control instances): throughput, per-transaction write ops, bytes and fsyncs, doublewrite wait; effects with confidence intervals and a verdict. Reads Prometheus, or a saved input with --input (docs/comparison.md).",
  rollout: "Staged rollout of a doublewrite change: plan, gate, apply, verify from metrics, judge, report.",
  audit: "The store's audit log: verify its hash chain (docs/security.md).",
} as const;

export type CommandName = keyof typeof DESCRIPTIONS;
