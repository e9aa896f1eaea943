import type { SafetyGate } from "@untorn/advisor/gate";
import { GateBadge } from "./badges.js";
import { CheckTable } from "./check-table.js";
import { Cited } from "./cited.js";

const CHECK: Record<string, string> = {
  pass: "badge-ok",
  fail: "badge-bad",
  unknown: "badge-outline",
  "not-established": "badge-warn",
  "not-applicable": "badge-outline",
};

const PATHS: Record<string, string> = {
  "provider-managed": "Provider-managed",
  "zfs-copy-on-write": "ZFS copy-on-write",
  "hardware-atomic-write": "Hardware atomic write",
};

/** The safety gate: can doublewrite be turned off here, and what would prove it. */
export function GateSection({ gate }: { gate: SafetyGate }) {
  return (
    <section className="section" aria-labelledby="gate-title">
      <h2 id="gate-title">Safety gate</h2>
      <p>
        <GateBadge status={gate.status} demoOnly={gate.demoOnly} />
        {gate.path && <span className="subtle"> via {PATHS[gate.path] ?? gate.path}</span>}
        {gate.providerManaged && <span className="badge badge-info">managed by the platform</span>}
      </p>
      <p data-testid="gate-summary">
        <Cited text={gate.summary} />
      </p>
      {gate.blockers.length > 0 && (
        <>
          <h3>Why it is unsafe</h3>
          <ul>
            {gate.blockers.map((b) => (
              <li key={b}>
                <Cited text={b} />
              </li>
            ))}
          </ul>
        </>
      )}
      {gate.toVerify.length > 0 && (
        <>
          <h3>To verify</h3>
          <ol>
            {gate.toVerify.map((t) => (
              <li key={t}>
                <Cited text={t} />
              </li>
            ))}
          </ol>
        </>
      )}
      <details>
        <summary>All checks ({gate.checks.length})</summary>
        <CheckTable
          label="Safety gate checks"
          columns={["Path", "Check", "Status", "Detail"]}
          headAt={1}
          rows={gate.checks.map((c) => ({
            key: `${c.path}-${c.id}`,
            cells: [
              PATHS[c.path] ?? c.path,
              <>
                {c.label}
                {!c.blocking && <span className="subtle"> (advisory)</span>}
              </>,
              <span key="status" className={`badge ${CHECK[c.status] ?? ""}`}>
                {c.status}
              </span>,
              <>
                <Cited text={c.detail} />
                {c.fix && (
                  <div className="subtle">
                    Fix: <Cited text={c.fix} />
                  </div>
                )}
                <div className="subtle">
                  <Cited text={c.source} />
                </div>
              </>,
            ],
          }))}
        />
      </details>
    </section>
  );
}
