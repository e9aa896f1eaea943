import { describe, expect, it } from "vitest";
import { DEFAULT_ROLLOUTS_QUERY, filterRollouts, parseRolloutsQuery } from "./rollouts-query.js";

const list = [
  {
    id: "a1",
    title: "Doublewrite off on billing",
    change: "innodb_doublewrite = OFF",
    createdBy: "alice",
    status: "active" as const,
  },
  {
    id: "b2",
    title: "Flush method",
    change: "innodb_flush_method = O_DIRECT",
    createdBy: "bob",
    status: "completed" as const,
  },
  {
    id: "c3",
    title: "Canary orders",
    change: "innodb_doublewrite = OFF",
    createdBy: "bob",
    status: "paused" as const,
  },
];

describe("parseRolloutsQuery", () => {
  it("parses q and status, treats an empty value as none", () => {
    expect(parseRolloutsQuery({})).toEqual({ query: DEFAULT_ROLLOUTS_QUERY, problems: [] });
    expect(parseRolloutsQuery(new URLSearchParams("q=%20bob%20&status=paused")).query).toEqual({
      q: "bob",
      status: "paused",
    });
    expect(parseRolloutsQuery({ status: "" })).toEqual({ query: DEFAULT_ROLLOUTS_QUERY, problems: [] });
  });
  it("names a bad, repeated or unknown parameter", () => {
    const { query, problems } = parseRolloutsQuery({ status: "stuck", q: ["a", "b"], sort: "x" });
    expect(query).toEqual(DEFAULT_ROLLOUTS_QUERY);
    const by = Object.fromEntries(problems.map((p) => [p.param, p.message]));
    expect(by.status).toMatch(/^must be one of active, paused/);
    expect(by.q).toBe("given more than once");
    expect(by.sort).toBe("unknown parameter (known: q, status)");
  });
});

describe("filterRollouts", () => {
  it("matches text in title, change, author or id, and the status", () => {
    expect(filterRollouts(list, DEFAULT_ROLLOUTS_QUERY)).toEqual(list);
    expect(filterRollouts(list, { q: "DOUBLEWRITE", status: null }).map((r) => r.id)).toEqual(["a1", "c3"]);
    expect(filterRollouts(list, { q: "bob", status: "paused" }).map((r) => r.id)).toEqual(["c3"]);
    expect(filterRollouts(list, { q: "b2", status: null }).map((r) => r.id)).toEqual(["b2"]);
    expect(filterRollouts(list, { q: "", status: "halted" })).toEqual([]);
  });
});
