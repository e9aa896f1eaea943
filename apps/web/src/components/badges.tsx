import {
  DOUBLEWRITE_MODE_LABELS,
  type GateStatus,
  parseDoublewriteMode,
  type Severity,
  type VerdictKind,
} from "@untorn/vocabulary/words";
import { pct } from "../lib/format.js";

const VERDICT: Record<VerdictKind, { label: string; cls: string }> = {
  "write-bound": { label: "Write-bound", cls: "badge-bad" },
  likely: { label: "Likely write-bound", cls: "badge-warn" },
  "not-write-bound": { label: "Not write-bound", cls: "badge-ok" },
  unknown: { label: "Unknown", cls: "badge-outline" },
};

export function VerdictBadge({ verdict, confidence }: { verdict: VerdictKind; confidence?: number }) {
  const v = VERDICT[verdict];
  return (
    <span className={`badge ${v.cls}`}>
      {v.label}
      {confidence !== undefined && <span className="subtle"> · {pct(confidence)}</span>}
    </span>
  );
}

export const verdictLabel = (v: VerdictKind) => VERDICT[v].label;

const GATE: Record<GateStatus, { label: string; cls: string; icon: string }> = {
  verified: { label: "Verified", cls: "badge-ok", icon: "✓" },
  unverified: { label: "Unverified", cls: "badge-warn", icon: "?" },
  unsafe: { label: "Unsafe", cls: "badge-bad", icon: "✕" },
};

/** The gate's status; `demoOnly` adds the tag a verification on a demo-only declaration always carries. */
export function GateBadge({ status, demoOnly = false }: { status: GateStatus; demoOnly?: boolean }) {
  const g = GATE[status];
  return (
    <>
      <span className={`badge ${g.cls}`}>
        <span aria-hidden="true">{g.icon}</span>
        {g.label}
      </span>
      {demoOnly && <DemoOnlyBadge />}
    </>
  );
}

/** Torn-write protection declared for a demo only: never to be read as real storage. */
export function DemoOnlyBadge() {
  return (
    <span
      className="badge badge-warn"
      data-testid="demo-only"
      title="The torn-write protection this rests on is declared for a demo, not verified on real storage."
    >
      demo only
    </span>
  );
}

export const gateLabel = (g: GateStatus) => GATE[g].label;

const SEVERITY: Record<Severity, string> = {
  critical: "badge-bad",
  error: "badge-bad",
  warning: "badge-warn",
  notice: "badge-info",
};

export function SeverityBadge({ severity }: { severity: Severity }) {
  return <span className={`badge ${SEVERITY[severity]}`}>{severity}</span>;
}

export function doublewriteLabel(mode: string | null): string {
  if (mode === null) return "unknown";
  const known = parseDoublewriteMode(mode);
  return known ? DOUBLEWRITE_MODE_LABELS[known] : mode;
}
