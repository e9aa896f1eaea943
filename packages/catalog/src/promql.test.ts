import { describe, expect, it } from "vitest";
import {
  addPresent,
  checkWindow,
  countAll,
  durationMs,
  eq,
  instant,
  isWindow,
  oneOf,
  orZero,
  range,
  ratio,
  re,
  renderMatchers,
  sumBy,
  vec,
  where,
} from "./promql.js";
import { assertPromql } from "./promql-check.js";

const scope = { selector: { instance: "db1" }, window: "5m", offset: undefined };

describe("selectors", () => {
  it("renders matchers in order and escapes values", () => {
    expect(renderMatchers({ instance: "db1" }, { class: re("a|b"), job: eq('x"y\\z') })).toBe(
      'instance="db1", class=~"a|b", job="x\\"y\\\\z"',
    );
    expect(() => renderMatchers({ "bad-label": "x" })).toThrow(/invalid label name/);
  });

  it("adds the scope's selector, window and offset", () => {
    expect(instant(scope, "m", { class: "data" })).toBe('m{instance="db1", class="data"}');
    expect(range({ ...scope, offset: "1d" }, "m")).toBe('m{instance="db1"}[5m] offset 1d');
    expect(instant({ selector: {}, window: "5m", offset: undefined }, "m")).toBe("m");
    expect(() => instant(scope, "not a metric")).toThrow(/invalid metric name/);
  });
});

describe("oneOf", () => {
  it("matches exactly the listed values, metacharacters escaped", () => {
    const m = oneOf(["db-1.example:3306", "a|b", "x(1)"]);
    expect(m).toEqual({ op: "=~", value: "db-1\\.example:3306|a\\|b|x\\(1\\)" });
    // Prometheus anchors =~ as ^(?:...)$; the same regex in JS shows what matches.
    const anchored = new RegExp(`^(?:${m.value})$`);
    expect(["db-1.example:3306", "a|b", "x(1)"].every((v) => anchored.test(v))).toBe(true);
    expect(["db-1xexample:3306", "a", "db-1.example:33060"].some((v) => anchored.test(v))).toBe(false);
    expect(renderMatchers({ instance: m })).toBe('instance=~"db-1\\\\.example:3306|a\\\\|b|x\\\\(1\\\\)"');
    expect(() => oneOf([])).toThrow("at least one value");
  });
});

describe("windows", () => {
  it("accepts PromQL durations and Grafana variables only", () => {
    for (const w of ["5m", "1h30m", "250ms", "$__rate_interval", `\${offset}`, "$__range"])
      expect(isWindow(w)).toBe(true);
    for (const w of ["5", "5 m", "rate", "$", "1h-5m", `\${a b}`]) expect(isWindow(w)).toBe(false);
    expect(() => checkWindow("5 minutes")).toThrow(/invalid window/);
  });

  it("converts durations to milliseconds", () => {
    expect(durationMs("1h30m")).toBe(5_400_000);
    expect(durationMs("1d")).toBe(86_400_000);
    expect(() => durationMs("$__range")).toThrow();
  });
});

describe("vector arithmetic", () => {
  const pages = sumBy([], "rate(a[5m])");
  const byClass = sumBy(["class"], "rate(b[5m])");

  it("matches on instance and lets the side with more labels be the many side", () => {
    expect(ratio(pages, pages).q).toBe(
      "sum by (instance) (rate(a[5m])) / on(instance) (sum by (instance) (rate(a[5m])) > 0)",
    );
    const r = ratio(byClass, pages);
    expect(r.q).toContain("/ on(instance) group_left() (");
    expect(r.labels).toEqual(["class"]);
    assertPromql(r.q);
  });

  it("counts the fleet, reading 0 rather than no data", () => {
    const q = orZero(countAll(where(pages, "==", 0))).q;
    expect(q).toBe("count(sum by (instance) (rate(a[5m])) == 0) or vector(0)");
    assertPromql(q);
  });

  it("adds what exists when one side is missing", () => {
    const q = addPresent(pages, vec("x")).q;
    expect(q).toBe(
      "(sum by (instance) (rate(a[5m])) + on(instance) x) or on(instance) sum by (instance) (rate(a[5m])) or on(instance) x",
    );
    assertPromql(q);
  });
});
