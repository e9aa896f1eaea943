import type { Finding } from "@untorn/advisor/rule";
import { withUnit } from "../lib/format.js";
import { gainText } from "../lib/gain.js";
import { ruleDocsHref } from "../lib/paths.js";
import { SeverityBadge } from "./badges.js";
import { Cited } from "./cited.js";
import { CopyButton } from "./copy-button.js";

const PLATFORMS: Record<string, string> = {
  "mysql-option-file": "MySQL / Percona option file",
  "mysql-runtime": "MySQL / Percona at runtime",
  "mariadb-option-file": "MariaDB option file",
  "mariadb-runtime": "MariaDB at runtime",
  "aws-rds": "AWS RDS",
  "alibaba-rds": "Alibaba ApsaraDB RDS",
  host: "Host and storage",
  monitoring: "Monitoring",
};

const LANG: Record<string, string> = { ini: "my.cnf", sql: "SQL", shell: "shell" };

export function FindingCard({ finding, headingLevel = 3 }: { finding: Finding; headingLevel?: 3 | 4 }) {
  const H = headingLevel === 3 ? "h3" : "h4";
  const id = `finding-${finding.ruleId}`;
  return (
    <article className={`finding sev-${finding.severity}`} aria-labelledby={id} data-rule={finding.ruleId}>
      <div className="finding-head">
        <SeverityBadge severity={finding.severity} />
        <H id={id} style={{ margin: 0 }}>
          {finding.title}
        </H>
        <code className="subtle">{finding.ruleId}</code>
        <a href={ruleDocsHref(finding.docs)}>Rule documentation</a>
      </div>
      <p>
        <Cited text={finding.summary} />
      </p>
      {finding.blocked && (
        <div className="banner banner-warn">
          <strong>Waiting for the safety gate ({finding.blocked.gate}).</strong>
          <Cited text={finding.blocked.reason} />
          {finding.blocked.toVerify.length > 0 && (
            <>
              {" "}
              To verify:
              <ul>
                {finding.blocked.toVerify.map((t) => (
                  <li key={t}>
                    <Cited text={t} />
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
      <dl className="facts">
        <dt>Expected gain</dt>
        <dd>
          {finding.expectedGain ? (
            <>
              {gainText(finding.expectedGain)}
              <span className="subtle">
                {" "}
                (<Cited text={finding.expectedGain.basis} />)
              </span>
              {finding.expectedGain.citations.length > 0 && (
                <div className="subtle">
                  Sources:{" "}
                  {finding.expectedGain.citations.map((c, i) => (
                    <span key={c}>
                      {i > 0 && "; "}
                      <Cited text={c} />
                    </span>
                  ))}
                </div>
              )}
            </>
          ) : (
            "none (no change to the write path)"
          )}
        </dd>
        <dt>Risk</dt>
        <dd>
          {finding.risk.level}: <Cited text={finding.risk.text} />
        </dd>
        <dt>Confidence</dt>
        <dd>{withUnit(finding.confidence, "ratio")}</dd>
        {finding.evidence.map((e) => (
          <Evidence key={e.label} label={e.label} value={e.value} unit={e.unit} />
        ))}
      </dl>
      {finding.prerequisites.length > 0 && (
        <>
          <h4>Before you start</h4>
          <ul>
            {finding.prerequisites.map((p) => (
              <li key={p}>
                <Cited text={p} />
              </li>
            ))}
          </ul>
        </>
      )}
      {finding.actions.length > 0 && <h4>What to change</h4>}
      {finding.actions.map((a, i) => (
        <details key={`${a.platform}-${a.title}`} open={i === 0}>
          <summary>
            <strong>{PLATFORMS[a.platform] ?? a.platform}</strong>: {a.title}
            {a.restart ? " (restart needed)" : ""}
          </summary>
          <ol>
            {a.steps.map((s) => (
              <li key={s}>
                <Cited text={s} />
              </li>
            ))}
          </ol>
          {a.snippets.map((s) => (
            <div key={s.text} className="snippet">
              <div className="snippet-bar">
                <span>{LANG[s.language] ?? s.language}</span>
                <CopyButton
                  text={s.text}
                  label={`Copy ${LANG[s.language] ?? s.language} for ${PLATFORMS[a.platform] ?? a.platform}`}
                />
              </div>
              <pre>
                <code>{s.text}</code>
              </pre>
            </div>
          ))}
        </details>
      ))}
    </article>
  );
}

function Evidence({ label, value, unit }: { label: string; value: number | string | null; unit?: string }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{typeof value === "number" ? withUnit(value, unit ?? "count") : (value ?? "unknown")}</dd>
    </>
  );
}
