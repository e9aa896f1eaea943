import { describe, expect, it } from "vitest";
import {
  DEFAULT_REC_QUERY,
  parseRecommendationsQuery,
  recommendationsQueryToParams,
} from "./recommendations-query.js";

describe("parseRecommendationsQuery", () => {
  it("gives the defaults for nothing and parses every parameter", () => {
    expect(parseRecommendationsQuery({})).toEqual({ query: DEFAULT_REC_QUERY, problems: [] });
    const { query, problems } = parseRecommendationsQuery(
      new URLSearchParams("q=%20orders%20&severity=warning&gate=waiting&range=6h"),
    );
    expect(problems).toEqual([]);
    expect(query).toEqual({ q: "orders", severity: "warning", gate: "waiting", range: "6h" });
    expect(recommendationsQueryToParams(query).toString()).toBe(
      "q=orders&severity=warning&gate=waiting&range=6h",
    );
    expect(recommendationsQueryToParams(DEFAULT_REC_QUERY).toString()).toBe("");
    // The form's "Any" is an empty value: no filter, no problem.
    expect(parseRecommendationsQuery({ severity: "", gate: "", q: "" })).toEqual({
      query: DEFAULT_REC_QUERY,
      problems: [],
    });
  });

  it("names a bad, unknown or repeated parameter and keeps the good ones", () => {
    const { query, problems } = parseRecommendationsQuery({
      severity: "fatal",
      gate: ["waiting", "actionable"],
      colour: "red",
      q: "db",
    });
    expect(query).toEqual({ ...DEFAULT_REC_QUERY, q: "db" });
    const by = Object.fromEntries(problems.map((p) => [p.param, p.message]));
    expect(by.severity).toBe("must be one of critical, error, warning, notice");
    expect(by.gate).toBe("given more than once");
    expect(by.colour).toMatch(/^unknown parameter \(known: q, severity, gate, range\)/);
  });
});
