import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { advise, enforceGate } from "./advise.js";
import { capabilitiesFor } from "./capabilities.js";
import { type InstanceFacts, parseInstanceFacts } from "./facts.js";
import { instanceFactsArbitrary } from "./fixtures/arbitrary.js";
import { scenarios } from "./fixtures/scenarios.js";
import { evaluateGate, type SafetyGate } from "./gate.js";
import { buildProfile } from "./profile.js";
import type { Finding } from "./rule.js";
import { rules } from "./rules.js";
import { judgeWriteBound } from "./verdict.js";

describe("scenario corpus", () => {
  it("covers at least 40 fact sets across the flavors, versions and storage the advice must be right for", () => {
    expect(scenarios.length).toBeGreaterThanOrEqual(40);
    expect(new Set(scenarios.map((s) => s.name)).size).toBe(scenarios.length);
    const versions = new Set(scenarios.map((s) => `${s.facts.server.flavor} ${s.facts.server.version}`));
    for (const v of [
      /^mysql 5\.7/,
      /^mysql 8\.0\.19/,
      /^mysql 8\.0\.25/,
      /^mysql 8\.0\.35/,
      /^mysql 8\.4/,
      /^mysql 9\./,
      /^mariadb 10\.6/,
      /^mariadb 10\.11/,
      /^mariadb 11\.4/,
      /^percona /,
    ])
      expect(
        [...versions].some((x) => v.test(x)),
        String(v),
      ).toBe(true);
    const has = (p: (s: (typeof scenarios)[number]) => boolean) => scenarios.some(p);
    expect(has((s) => s.facts.platform?.managed === "rds")).toBe(true);
    expect(has((s) => s.facts.storage?.fsType === "zfs")).toBe(true);
    expect(has((s) => (s.facts.storage?.atomicWrite?.unitMaxBytes ?? 0) >= 16384)).toBe(true);
    expect(has((s) => s.facts.storage?.device?.startsWith("vd") === true)).toBe(true);
    for (const v of ["write-bound", "likely", "not-write-bound", "unknown"] as const)
      expect(
        has((s) => s.verdict === v),
        v,
      ).toBe(true);
    for (const g of ["verified", "unverified", "unsafe"] as const)
      expect(
        has((s) => s.gate === g),
        g,
      ).toBe(true);
  });

  it.each(scenarios.map((s) => [s.name, s] as const))("%s", (_name, s) => {
    const a = advise(s.facts);
    expect(a.verdict.verdict, a.verdict.summary).toBe(s.verdict);
    expect(a.safetyGate.status, a.safetyGate.summary).toBe(s.gate);
    const got = Object.fromEntries(a.findings.map((f) => [f.ruleId, f.severity]));
    expect(got).toEqual(s.findings);
    const blocked = a.findings.filter((f) => f.blocked !== null).map((f) => f.ruleId);
    expect(blocked.sort()).toEqual([...(s.blocked ?? [])].sort());
    // Every finding carries its computed summary, a docs page and a confidence in range.
    for (const f of a.findings) {
      expect(f.summary.length).toBeGreaterThan(40);
      expect(f.docs).toBe(`docs/rules/${f.ruleId}.md`);
      expect(f.confidence).toBeGreaterThanOrEqual(0);
      expect(f.confidence).toBeLessThanOrEqual(1);
    }
  });
});

describe("advise", () => {
  const sample = scenarios.find((s) => s.name === "mysql-8.0.35 16k-metered write-bound, twp verified");
  if (!sample) throw new Error("scenario missing");

  it("is deterministic and JSON-serialisable", () => {
    const a = advise(sample.facts);
    const b = advise(structuredClone(sample.facts));
    expect(b).toEqual(a);
    expect(JSON.parse(JSON.stringify(a))).toEqual(a);
  });

  it("orders findings by severity, then rule id", () => {
    for (const s of scenarios) {
      const order = ["critical", "error", "warning", "notice"];
      const keys = advise(s.facts).findings.map((f) => `${order.indexOf(f.severity)}:${f.ruleId}`);
      expect(keys).toEqual([...keys].sort());
    }
  });

  it("lets a rule be switched off or given options", () => {
    const base = advise(sample.facts);
    expect(base.findings.some((f) => f.ruleId === "doublewrite-share-high")).toBe(true);
    const off = advise(sample.facts, { rules: { "doublewrite-share-high": "off" } });
    expect(off.findings.some((f) => f.ruleId === "doublewrite-share-high")).toBe(false);
    const strict = advise(sample.facts, { rules: { "doublewrite-share-high": { minShare: 0.9 } } });
    expect(strict.findings.some((f) => f.ruleId === "doublewrite-share-high")).toBe(false);
    expect(() => advise(sample.facts, { rules: { "doublewrite-share-high": { minShare: 2 } } })).toThrow();
  });

  it("reports the capabilities it used", () => {
    const a = advise(sample.facts);
    expect(a.server.capabilities).toEqual(capabilitiesFor(sample.facts));
    expect(a.server.version).toBe("8.0.35");
  });
});

describe("enforceGate", () => {
  const off: Finding = {
    ruleId: "x",
    severity: "warning",
    title: "t",
    summary: "s",
    evidence: [],
    actions: [
      {
        platform: "mysql-option-file",
        title: "off",
        steps: [],
        snippets: [],
        restart: true,
        changes: [
          {
            variable: "innodb_doublewrite",
            from: "ON",
            to: "OFF",
            via: "option-file",
            restart: true,
            removesTornPageProtection: true,
          },
        ],
      },
      { platform: "host", title: "verify", steps: [], snippets: [], restart: false, changes: [] },
    ],
    expectedGain: null,
    risk: { level: "medium", text: "" },
    prerequisites: [],
    docs: "docs/rules/x.md",
    blocked: null,
    confidence: 1,
  };
  const gate = (status: SafetyGate["status"]): SafetyGate => ({
    status,
    path: status === "verified" ? "hardware-atomic-write" : null,
    summary: status,
    demoOnly: false,
    checks: [],
    toVerify: ["do X"],
    blockers: [],
    providerManaged: false,
  });

  it("drops steps that remove torn-page protection behind an unverified or unsafe gate", () => {
    for (const status of ["unverified", "unsafe"] as const) {
      const f = enforceGate(off, gate(status));
      expect(f.actions.map((a) => a.title)).toEqual(["verify"]);
      expect(f.blocked).toEqual({
        gate: status,
        reason: expect.stringContaining(status),
        toVerify: ["do X"],
      });
    }
  });

  it("keeps them behind a verified gate", () => {
    expect(enforceGate(off, gate("verified"))).toBe(off);
  });
});

/** True when a step takes innodb_doublewrite to a mode that cannot repair a torn page, whatever its flag says. */
const removesProtection = (f: Finding) =>
  f.actions.some((a) =>
    a.changes.some(
      (c) =>
        c.removesTornPageProtection ||
        (c.variable === "innodb_doublewrite" && /^(off|false|0|detect_only)$/i.test(c.to)),
    ),
  );

describe("safety property: no doublewrite-off advice without a verified gate", () => {
  const facts = instanceFactsArbitrary.map((input) => parseInstanceFacts(input));

  it("holds for advise() over generated facts", () => {
    // Counters prove the generator reaches both sides: OFF advised (verified) and OFF blocked.
    let advisedOff = 0;
    let blocked = 0;
    fc.assert(
      fc.property(facts, (f) => {
        const a = advise(f);
        for (const finding of a.findings) {
          if (finding.blocked) blocked++;
          if (removesProtection(finding)) {
            advisedOff++;
            expect(a.safetyGate.status).toBe("verified");
            expect(a.safetyGate.providerManaged).toBe(false);
          }
        }
      }),
      { numRuns: 3000, seed: 20261121 },
    );
    expect(advisedOff).toBeGreaterThan(100);
    expect(blocked).toBeGreaterThan(30);
  });

  it("holds for every rule on its own, before advise() enforces the gate", () => {
    fc.assert(
      fc.property(facts, (f: InstanceFacts) => {
        const caps = capabilitiesFor(f);
        const profile = buildProfile(f, caps);
        const verdict = judgeWriteBound(f, caps, profile);
        const gate = evaluateGate(f, caps);
        for (const rule of rules)
          for (const finding of rule.run(f, profile, { caps, verdict, gate }, {}))
            if (removesProtection(finding)) {
              expect(gate.status, rule.meta.id).toBe("verified");
              expect(gate.providerManaged, rule.meta.id).toBe(false);
            }
      }),
      { numRuns: 3000, seed: 7 },
    );
  });

  it("never marks a doublewrite-removing step as harmless", () => {
    fc.assert(
      fc.property(facts, (f) => {
        for (const finding of advise(f).findings)
          for (const a of finding.actions)
            for (const c of a.changes)
              if (c.variable === "innodb_doublewrite" && /^(off|detect_only)$/i.test(c.to))
                expect(c.removesTornPageProtection).toBe(true);
      }),
      { numRuns: 1000, seed: 11 },
    );
  });
});

describe("properties over generated facts", () => {
  const facts = instanceFactsArbitrary.map((input) => parseInstanceFacts(input));

  it("keeps scores, confidences and gains in range and is deterministic", () => {
    fc.assert(
      fc.property(facts, (f) => {
        const a = advise(f);
        expect(advise(f)).toEqual(a);
        expect(a.verdict.score).toBeGreaterThanOrEqual(0);
        expect(a.verdict.score).toBeLessThanOrEqual(1);
        expect(a.verdict.confidence).toBeGreaterThanOrEqual(0);
        expect(a.verdict.confidence).toBeLessThanOrEqual(1);
        for (const finding of a.findings) {
          expect(finding.confidence).toBeGreaterThanOrEqual(0);
          expect(finding.confidence).toBeLessThanOrEqual(1);
          const g = finding.expectedGain;
          if (!g) continue;
          for (const r of [g.throughput, g.writeBytesPerTxn, g.writeOpsPerTxn, g.fsyncsPerTxn]) {
            if (!r) continue;
            expect(Number.isFinite(r.low) && Number.isFinite(r.high)).toBe(true);
            expect(r.low).toBeGreaterThanOrEqual(0);
            expect(r.low).toBeLessThanOrEqual(r.high + 1e-9);
            expect(r.high).toBeLessThanOrEqual(1);
          }
        }
        for (const i of Object.values(a.profile.indicators))
          if (i.value !== null) expect(Number.isFinite(i.value)).toBe(true);
      }),
      { numRuns: 1500, seed: 3 },
    );
  });

  it("treats a missing signal as missing, not as zero", () => {
    const withWorkload = facts.filter((f) => f.workload != null);
    fc.assert(
      fc.property(withWorkload, (f) => {
        const zero = structuredClone(f);
        const gone = structuredClone(f);
        if (!zero.workload || !gone.workload) return;
        zero.workload.rates = { ...zero.workload.rates, bufferPoolWaitFree: { avg: 0 } };
        gone.workload.rates = { ...gone.workload.rates, bufferPoolWaitFree: null };
        const vz = advise(zero).verdict;
        const vg = advise(gone).verdict;
        const ez = vz.evidence.find((e) => e.signal === "free-page-waits");
        const eg = vg.evidence.find((e) => e.signal === "free-page-waits");
        expect(ez?.state).toBe("clear");
        expect(ez?.value).toBe(0);
        expect(eg?.state).toBe("missing");
        expect(eg?.value).toBeNull();
        expect(vg.confidence).toBeLessThanOrEqual(vz.confidence);
        expect(advise(gone).profile.indicators.freePageWaitsRate.value).toBeNull();
      }),
      { numRuns: 1000, seed: 5 },
    );
  });
});
