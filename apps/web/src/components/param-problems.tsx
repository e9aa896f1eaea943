import type { ParamProblem } from "../lib/fleet-query.js";

/** Bad URL parameters: said clearly, with what was accepted and a way back to a clean URL. */
export function ParamProblems({
  problems,
  resetHref,
}: {
  problems: readonly ParamProblem[];
  resetHref: string;
}) {
  return (
    <div className="banner banner-warn" role="alert" data-testid="param-problems">
      <strong>Some URL parameters were ignored:</strong>
      <ul>
        {problems.map((p) => (
          <li key={`${p.param}=${p.value}`}>
            <code>
              {p.param}={p.value}
            </code>
            : {p.message}
          </li>
        ))}
      </ul>
      <p>
        The page shows the rest. <a href={resetHref}>Start from a clean URL</a>.
      </p>
    </div>
  );
}
