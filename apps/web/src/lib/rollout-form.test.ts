import { describe, expect, it } from "vitest";
import { metricsWith, parseCommandForm, parsePlanForm, parseTargets } from "./rollout-form.js";

const e = (o: Record<string, string | string[]>): [string, string][] =>
  Object.entries(o).flatMap(([k, v]) =>
    Array.isArray(v) ? v.map((x) => [k, x] as [string, string]) : [[k, v]],
  );

describe("parsePlanForm", () => {
  it("reads the defaults as the engine's policy", () => {
    const r = parsePlanForm([]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.change).toEqual({ kind: "doublewrite-off" });
    expect(r.value.policy).toMatchObject({
      maxInstancesPerWave: 2,
      maxClusterShare: 0.5,
      bakeSeconds: 3600,
      warmupSeconds: 600,
      includePrimaries: true,
      requireControl: true,
    });
    expect(r.value.backupTakenAt).toBeNull();
  });

  it("puts the margins on the judged metrics by kind", () => {
    const r = parsePlanForm(e({ throughputMarginPct: "2.5", latencyMarginPct: "20", minGainPct: "10" }));
    if (!r.ok) throw new Error(JSON.stringify(r.fieldErrors));
    const m = r.value.policy.metrics ?? [];
    expect(m.find((x) => x.kind === "throughput")?.margin).toBe(0.025);
    expect(m.find((x) => x.kind === "latency")?.margin).toBe(0.2);
    expect(m.filter((x) => x.role === "expected").every((x) => x.minChange === 0.1)).toBe(true);
  });

  it.each([
    ["maxInstancesPerWave", "0", /at least 1/],
    ["maxInstancesPerWave", "1e3", /whole number/],
    ["maxClusterSharePct", "150", /at most 100%/],
    ["bakeMinutes", " ", /whole number/],
    ["maxLagSeconds", "-1", /whole number/],
    ["throughputMarginPct", "five", /percentage/],
    ["approval", "never", /each-wave or first-wave/],
    ["kind", "drop-table", /choose a change/],
    ["backupTakenAt", "yesterday", /date and time/],
    ["backupTakenAt", "2026-02-30T10:00", /real date/],
  ])("%s=%j is refused on that field", (field, value, message) => {
    const r = parsePlanForm(e({ [field]: value }));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.fieldErrors[field]).toMatch(message);
    expect(r.values[field as keyof typeof r.values]).toBe(value);
  });

  it("asks for the change's own parameter on its field", () => {
    const pages = parsePlanForm(e({ kind: "doublewrite-pages", pages: "9999" }));
    expect(!pages.ok && pages.fieldErrors.pages).toMatch(/1 to 512/);
    const method = parsePlanForm(e({ kind: "flush-method" }));
    expect(!method.ok && method.fieldErrors.method).toMatch(/flush method/);
    const platform = parsePlanForm(e({ kind: "atomic-storage", platform: "floppy" }));
    expect(!platform.ok && platform.fieldErrors.platform).toMatch(/storage platform/);
    const ok = parsePlanForm(e({ kind: "doublewrite-pages", pages: "128" }));
    expect(ok.ok && ok.value.change).toEqual({ kind: "doublewrite-pages", pages: 128 });
  });

  it("reads a backup time as UTC", () => {
    const r = parsePlanForm(e({ backupTakenAt: "2026-11-25T01:30" }));
    expect(r.ok && r.value.backupTakenAt).toBe(Date.UTC(2026, 10, 25, 1, 30) / 1000);
  });

  it("an edited form's unticked checkbox is false; an untouched one keeps the default", () => {
    const edited = parsePlanForm(e({ edited: "1", requireControl: "on" }));
    expect(edited.ok && edited.value.policy).toMatchObject({ includePrimaries: false, requireControl: true });
    const fresh = parsePlanForm([]);
    expect(fresh.ok && fresh.value.policy.includePrimaries).toBe(true);
  });

  it("lets the engine's own limits speak on the field that set them", () => {
    // The engine wants a bake of at least 60 s; one minute is its floor, so 0 is refused by the form.
    const r = parsePlanForm(e({ bakeMinutes: "0" }));
    expect(!r.ok && r.fieldErrors.bakeMinutes).toMatch(/at least 1/);
  });
});

describe("parseTargets", () => {
  it("reads repeated and comma-separated targets, once each", () => {
    expect(parseTargets(e({ target: ["a:9105", "b:9105"], targets: "b:9105, c:9105" }))).toEqual({
      ok: true,
      targets: ["a:9105", "b:9105", "c:9105"],
    });
  });
  it("refuses names with spaces or control characters", () => {
    expect(parseTargets(e({ target: "a b" })).ok).toBe(false);
    expect(parseTargets(e({ target: "a\u0000" })).ok).toBe(false);
  });
});

describe("parseCommandForm", () => {
  const base = { id: "r-1", version: "3", key: "0123456789abcdef" };
  it("reads a pause with its reason", () => {
    const r = parseCommandForm("pause", e({ ...base, reason: " lag on the replica " }));
    expect(r).toEqual({
      ok: true,
      value: { id: "r-1", version: 3, key: base.key, reason: "lag on the replica" },
    });
  });
  it("wants a reason for pause, abort and revert, on the reason field", () => {
    for (const n of ["pause", "abort", "revert"] as const) {
      const r = parseCommandForm(n, e({ ...base, reason: "  " }));
      expect(!r.ok && r.fieldErrors.reason).toMatch(/say why/);
    }
  });
  it("reports a missing key or version as a form error that says reload", () => {
    const r = parseCommandForm("resume", e({ id: "r-1" }));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.fieldErrors.form).toMatch(/reload/);
  });
  it("refuses a wave that is not a whole number", () => {
    const r = parseCommandForm("approve", e({ ...base, wave: "1.5" }));
    expect(!r.ok && r.fieldErrors.wave).toMatch(/whole number/);
  });
  it("refuses an id that is no rollout id", () => {
    const r = parseCommandForm("stepDone", e({ ...base, id: "../x", instance: "a:9105" }));
    expect(!r.ok && r.fieldErrors.form).toMatch(/not a rollout id/);
  });
});

describe("metricsWith", () => {
  it("keeps informative metrics as they are", () => {
    const m = metricsWith({ kind: "doublewrite-off" }, { throughput: 0.5, latency: 0.5, minGain: 0.5 });
    const info = m.filter((x) => x.role === "informative");
    expect(info.length).toBeGreaterThan(0);
    expect(info.every((x) => x.margin === 0.05 && x.minChange === 0)).toBe(true);
  });
});
