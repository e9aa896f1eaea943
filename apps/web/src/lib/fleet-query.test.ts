import { describe, expect, it } from "vitest";
import {
  applyFleetQuery,
  DEFAULT_QUERY,
  fleetQueryToParams,
  PAGE_SIZE,
  pageBounds,
  parseFleetQuery,
  parsePageNumber,
  parsePageQuery,
} from "./fleet-query.js";
import type { FleetRow } from "./fleet-row.js";

function row(instance: string, over: Partial<FleetRow> = {}): FleetRow {
  return {
    rank: 1,
    instance,
    cluster: null,
    role: null,
    flavor: "mariadb",
    version: "10.11.19-MariaDB",
    doublewrite: "on",
    gate: { status: "unverified", path: null, providerManaged: false, demoOnly: false, summary: "" },
    verdict: "unknown",
    confidence: 0.5,
    amplification: null,
    dblwrShare: null,
    dblwrShareBasis: null,
    dblwrBytesPerSecond: null,
    gain: null,
    benefit: 0,
    canDropDoublewrite: false,
    waitingForGate: false,
    worstSeverity: null,
    findings: 0,
    exporters: { untorn: true, mysqldExporter: false },
    stale: false,
    ...over,
  };
}

describe("only: the summary cards' filters", () => {
  const rows = [
    row("a", { canDropDoublewrite: true }),
    row("b", { waitingForGate: true, worstSeverity: "warning" }),
    row("c", { waitingForGate: true, worstSeverity: "error" }),
    row("d", { worstSeverity: "critical" }),
    row("e", { worstSeverity: "notice" }),
  ];
  const only = (v: string) =>
    applyFleetQuery(rows, parseFleetQuery({ only: v }).query).map((r) => r.instance);
  it("keeps the rows each card counts", () => {
    expect(only("can-drop")).toEqual(["a"]);
    expect(only("waiting-for-gate")).toEqual(["b", "c"]);
    expect(only("at-risk")).toEqual(["c", "d"]);
  });
  it("round-trips through the URL and rejects an unknown card", () => {
    const q = parseFleetQuery({ only: "at-risk" }).query;
    expect(fleetQueryToParams(q).toString()).toBe("only=at-risk");
    const bad = parseFleetQuery({ only: "everything" });
    expect(bad.query.only).toBeNull();
    expect(bad.problems[0]).toMatchObject({ param: "only", message: /must be one of can-drop/ });
  });
});

describe("parseFleetQuery", () => {
  it("gives the defaults for no parameters", () => {
    expect(parseFleetQuery({})).toEqual({ query: DEFAULT_QUERY, problems: [] });
  });

  it("parses every parameter and the column's default direction", () => {
    const { query, problems } = parseFleetQuery(
      new URLSearchParams("q=%20db-1%20&cluster=orders&flavor=mysql&verdict=likely&gate=verified&sort=share"),
    );
    expect(problems).toEqual([]);
    expect(query).toEqual({
      q: "db-1",
      cluster: "orders",
      flavor: "mysql",
      verdict: "likely",
      gate: "verified",
      only: null,
      sort: "share",
      dir: "desc",
      range: null,
      trend: "dw-pages",
    });
  });

  it("takes the trend column's figure; a bad one is named and dropped, and the default stays out of the URL", () => {
    expect(parseFleetQuery({ trend: "busy" }).query.trend).toBe("busy");
    const bad = parseFleetQuery({ trend: "latency" });
    expect(bad.query.trend).toBe("dw-pages");
    expect(bad.problems[0]).toMatchObject({ param: "trend", message: /dw-pages, dw-share, busy/ });
    expect(fleetQueryToParams({ ...DEFAULT_QUERY, trend: "dw-share" }).toString()).toBe("trend=dw-share");
    expect(fleetQueryToParams(DEFAULT_QUERY).toString()).toBe("");
  });

  it("takes a time range: a preset or a custom duration; a bad one is named and dropped", () => {
    expect(parseFleetQuery({ range: "6h" }).query.range).toBe("6h");
    expect(parseFleetQuery({ range: "90m" }).query.range).toBe("90m");
    const bad = parseFleetQuery({ range: "forever", gate: "unsafe" });
    expect(bad.query.range).toBeNull();
    expect(bad.query.gate).toBe("unsafe");
    expect(bad.problems).toEqual([
      {
        param: "range",
        value: "forever",
        message: expect.stringMatching(/^must be one of 15m, 1h, 6h, 24h, 7d/),
      },
    ]);
    expect(parseFleetQuery({ range: "45d" }).problems[0]?.message).toBe("must be from 30s to 30d");
    expect(fleetQueryToParams({ ...DEFAULT_QUERY, range: "24h" }).toString()).toBe("range=24h");
  });

  it("reports bad, unknown and repeated parameters and keeps the good ones", () => {
    const { query, problems } = parseFleetQuery({
      sort: "bogus",
      verdict: "write-bound",
      gate: ["verified", "unsafe"],
      verdit: "likely",
      q: "x".repeat(201),
    });
    expect(query.verdict).toBe("write-bound");
    expect(query.sort).toBe("rank");
    expect(query.gate).toBeNull();
    expect(query.q).toBe("");
    const byParam = Object.fromEntries(problems.map((p) => [p.param, p.message]));
    expect(byParam.sort).toMatch(/must be one of rank, instance/);
    expect(byParam.gate).toBe("given more than once");
    expect(byParam.verdit).toMatch(/unknown parameter/);
    expect(byParam.q).toMatch(/at most 200/);
    expect(problems.find((p) => p.param === "q")?.value.length).toBeLessThanOrEqual(60);
  });

  it("round-trips through URL parameters, leaving defaults out", () => {
    const q = {
      ...DEFAULT_QUERY,
      q: "a b",
      gate: "unsafe" as const,
      sort: "gain" as const,
      dir: "asc" as const,
    };
    const p = fleetQueryToParams(q);
    expect(p.toString()).toBe("q=a+b&gate=unsafe&sort=gain&dir=asc");
    expect(parseFleetQuery(p).query).toEqual(q);
    expect(fleetQueryToParams(DEFAULT_QUERY).toString()).toBe("");
  });
});

describe("applyFleetQuery", () => {
  const rows = [
    row("db-a", { rank: 1, cluster: "orders", amplification: 1, verdict: "write-bound", confidence: 0.6 }),
    row("db-b", { rank: 2, cluster: "billing", amplification: null, verdict: "likely", flavor: "mysql" }),
    row("db-c", { rank: 3, cluster: "orders", amplification: 0.4, verdict: "write-bound", confidence: 0.9 }),
    row("db-10", {
      rank: 4,
      amplification: 0,
      gate: { status: "verified", path: null, providerManaged: false, demoOnly: false, summary: "" },
    }),
  ];

  it("filters by cluster, flavor, verdict, gate and text", () => {
    const q = DEFAULT_QUERY;
    expect(applyFleetQuery(rows, { ...q, cluster: "orders" }).map((r) => r.instance)).toEqual([
      "db-a",
      "db-c",
    ]);
    expect(applyFleetQuery(rows, { ...q, flavor: "mysql" }).map((r) => r.instance)).toEqual(["db-b"]);
    expect(applyFleetQuery(rows, { ...q, gate: "verified" }).map((r) => r.instance)).toEqual(["db-10"]);
    expect(applyFleetQuery(rows, { ...q, q: "BILL" }).map((r) => r.instance)).toEqual(["db-b"]);
    expect(applyFleetQuery(rows, { ...q, q: "8.0" }).map((r) => r.instance)).toEqual([]);
  });

  it("sorts nulls last in both directions and numbers in names naturally", () => {
    const amp = (dir: "asc" | "desc") =>
      applyFleetQuery(rows, { ...DEFAULT_QUERY, sort: "amplification", dir }).map((r) => r.instance);
    expect(amp("desc")).toEqual(["db-a", "db-c", "db-10", "db-b"]);
    expect(amp("asc")).toEqual(["db-10", "db-c", "db-a", "db-b"]);
    const named = [row("db-10"), row("db-2"), row("db-1")];
    expect(
      applyFleetQuery(named, { ...DEFAULT_QUERY, sort: "instance", dir: "asc" }).map((r) => r.instance),
    ).toEqual(["db-1", "db-2", "db-10"]);
  });

  it("orders verdicts write-bound first, the more confident first within one", () => {
    const v = applyFleetQuery(rows, { ...DEFAULT_QUERY, sort: "verdict", dir: "asc" }).map((r) => r.instance);
    expect(v).toEqual(["db-c", "db-a", "db-b", "db-10"]);
  });
});

describe("parsePageQuery", () => {
  it("splits limit and offset off and validates them", () => {
    const { page, rest, problems } = parsePageQuery(new URLSearchParams("limit=50&offset=100&sort=gain"));
    expect(page).toEqual({ limit: 50, offset: 100 });
    expect(rest.toString()).toBe("sort=gain");
    expect(problems).toEqual([]);
    const bad = parsePageQuery(new URLSearchParams("limit=0&offset=-1"));
    expect(bad.page).toEqual({ limit: null, offset: 0 });
    expect(bad.problems.map((p) => p.param)).toEqual(["limit", "offset"]);
  });

  it.each(["1e3", "0x10", "0b11", " 5", "5.0", "+5", "١٢"])("refuses limit=%j (decimal digits only)", (v) => {
    const r = parsePageQuery(new URLSearchParams({ limit: v, offset: v }));
    expect(r.page).toEqual({ limit: null, offset: 0 });
    expect(r.problems.map((p) => p.param)).toEqual(["limit", "offset"]);
  });
});

describe("parsePageNumber", () => {
  it("splits the page off, 1 by default, and leaves the rest for parseFleetQuery", () => {
    const r = parsePageNumber({ page: "3", sort: "gain", q: ["a"] });
    expect(r.page).toBe(3);
    expect(r.rest).toEqual({ sort: ["gain"], q: ["a"] });
    expect(r.problems).toEqual([]);
    expect(parsePageNumber(new URLSearchParams("sort=gain")).page).toBe(1);
    expect(parseFleetQuery(r.rest).query.sort).toBe("gain");
  });

  it.each(["0", "-1", "1e3", "2.5", " 2", "x"])("refuses page=%j and shows page 1", (v) => {
    const r = parsePageNumber({ page: v });
    expect(r.page).toBe(1);
    expect(r.problems.map((p) => p.param)).toEqual(["page"]);
  });

  it("refuses a repeated page", () => {
    const r = parsePageNumber(new URLSearchParams("page=2&page=3"));
    expect(r.page).toBe(1);
    expect(r.problems[0]?.message).toBe("given more than once");
  });
});

describe("pageBounds", () => {
  it("cuts the matching rows into pages of PAGE_SIZE, the last one short", () => {
    expect(pageBounds(10_000, 1)).toEqual({ page: 1, pages: 100, offset: 0, end: PAGE_SIZE });
    expect(pageBounds(250, 3)).toEqual({ page: 3, pages: 3, offset: 200, end: 250 });
  });

  it("shows the last page for a page past the end, and one empty page for no rows", () => {
    expect(pageBounds(250, 9)).toEqual({ page: 3, pages: 3, offset: 200, end: 250 });
    expect(pageBounds(0, 4)).toEqual({ page: 1, pages: 1, offset: 0, end: 0 });
  });
});
