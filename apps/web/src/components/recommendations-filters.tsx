import { SEVERITIES } from "@untorn/vocabulary/words";
import { type RecommendationsQuery, recommendationsQueryToParams } from "../lib/recommendations-query.js";

const GATE_LABELS = { waiting: "Waiting for the safety gate", actionable: "Actionable now" } as const;

/**
 * The Recommendations page's search and filters: a plain GET form (the URL is the state, no script
 * needed; Enter in the search applies it), and the CSV of what they keep.
 */
export function RecommendationsFilters({ query }: { query: RecommendationsQuery }) {
  const p = recommendationsQueryToParams(query).toString();
  return (
    <search className="controls" aria-label="Filter the recommendations">
      <form method="get" action="/recommendations" className="controls-form">
        <label>
          Search{" "}
          <input
            type="search"
            name="q"
            defaultValue={query.q}
            placeholder="rule, instance or cluster"
            maxLength={200}
          />
        </label>
        <label>
          Severity{" "}
          <select name="severity" defaultValue={query.severity ?? ""}>
            <option value="">Any</option>
            {SEVERITIES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          State{" "}
          <select name="gate" defaultValue={query.gate ?? ""}>
            <option value="">Any</option>
            {(Object.keys(GATE_LABELS) as (keyof typeof GATE_LABELS)[]).map((g) => (
              <option key={g} value={g}>
                {GATE_LABELS[g]}
              </option>
            ))}
          </select>
        </label>
        {query.range && <input type="hidden" name="range" value={query.range} />}
        <button type="submit">Apply</button>
        <a
          href={
            query.range ? `/recommendations?range=${encodeURIComponent(query.range)}` : "/recommendations"
          }
        >
          Reset
        </a>
        <a
          className="button"
          href={`/api/v1/recommendations.csv${p ? `?${p}` : ""}`}
          download
          data-testid="recommendations-csv"
        >
          Download CSV
        </a>
      </form>
    </search>
  );
}
