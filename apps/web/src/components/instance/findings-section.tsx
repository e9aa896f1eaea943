/** An instance's findings, each with a link to plan its change where the viewer may create a rollout. */
import Link from "next/link";
import { gainText } from "../../lib/gain.js";
import { changeFieldsOf, planHref } from "../../lib/rollout-link.js";
import type { InstanceView } from "../../server/fleet/instance.js";
import { FindingCard } from "../finding-card.js";

export function FindingsSection({
  instance,
  findings,
  gain,
  canPlan,
}: {
  instance: string;
  findings: InstanceView["advice"]["findings"];
  /** The fleet row's best opportunity (null: none). */
  gain: InstanceView["row"]["gain"];
  /** Whether the viewer may create a rollout (the plan links are shown only then). */
  canPlan: boolean;
}) {
  return (
    <section className="section" aria-labelledby="findings-title">
      <h2 id="findings-title">Findings ({findings.length})</h2>
      {gain && (
        <p>
          Best opportunity: <strong>{gain.title}</strong>, {gainText(gain)}
          {gain.blocked ? " once the safety gate is verified" : ""}.
        </p>
      )}
      {findings.length === 0 ? (
        <p className="subtle">Nothing to change: no rule fired for this instance.</p>
      ) : (
        findings.map((f) => {
          const fields = canPlan ? changeFieldsOf(f) : null;
          return (
            <div key={f.ruleId}>
              <FindingCard finding={f} />
              {fields && (
                <p>
                  <Link
                    href={planHref(fields, [instance], f.ruleId)}
                    aria-label={`Plan a rollout: ${f.title}`}
                  >
                    Plan a rollout
                  </Link>{" "}
                  <span className="subtle">
                    of this change on this instance (the plan editor adds its control)
                  </span>
                </p>
              )}
            </div>
          );
        })
      )}
    </section>
  );
}
