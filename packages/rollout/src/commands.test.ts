import { describe, expect, it } from "vitest";
import { commandSchema, createCommandSchema } from "./commands.ts";
import { observationsSchema } from "./observations.ts";
import { planInputSchema } from "./plan.ts";
import { mysql, operator } from "./testing.ts";

const issues = (r: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  r.success ? [] : r.error!.issues.map((i) => `${i.path.join(".")}: ${i.message}`);

describe("input validation", () => {
  it.each([
    ["no instances", { change: { kind: "doublewrite-off" }, instances: [] }, "instances"],
    [
      "unknown change",
      { change: { kind: "doublewrite-sideways" }, instances: [mysql("a", "replica")] },
      "change.kind",
    ],
    [
      "pages out of range",
      { change: { kind: "doublewrite-pages", pages: 513 }, instances: [mysql("a", "replica")] },
      "change.pages",
    ],
    [
      "blast radius 0",
      {
        change: { kind: "doublewrite-off" },
        instances: [mysql("a", "replica")],
        policy: { maxInstancesPerWave: 0 },
      },
      "policy.maxInstancesPerWave",
    ],
    [
      "unknown policy field",
      { change: { kind: "doublewrite-off" }, instances: [mysql("a", "replica")], policy: { yolo: true } },
      "policy",
    ],
    ["bad facts", { change: { kind: "doublewrite-off" }, instances: [{ schemaVersion: 1 }] }, "instances.0"],
  ])("plan input: %s is refused at %s", (_n, input, path) => {
    const r = planInputSchema.safeParse(input);
    expect(r.success).toBe(false);
    expect(issues(r).some((i) => i.startsWith(path))).toBe(true);
  });

  it("the policy defaults apply to an empty object", () => {
    const p = planInputSchema.parse({
      change: { kind: "doublewrite-off" },
      instances: [mysql("a", "replica")],
    }).policy;
    expect(p).toMatchObject({
      maxInstancesPerWave: 2,
      bakeSeconds: 1800,
      judgement: "sequential",
      lookEverySeconds: 60,
      baselineSeconds: 3600,
      applier: { kind: "operator" },
      requireControl: true,
    });
  });

  it.each([
    ["missing key", { type: "pause", actor: operator, reason: "x" }, "key"],
    ["key with spaces", { type: "pause", key: "a b", actor: operator, reason: "x" }, "key"],
    [
      "unknown actor kind",
      { type: "pause", key: "k", actor: { id: "x", kind: "robot" }, reason: "x" },
      "actor.kind",
    ],
    ["unknown command", { type: "promote-everything", key: "k", actor: operator }, "type"],
    ["negative wave", { type: "approve", key: "k", actor: operator, wave: -1 }, "wave"],
    ["empty reason", { type: "abort", key: "k", actor: operator, reason: "" }, "reason"],
    ["extra field", { type: "resume", key: "k", actor: operator, force: true }, ""],
  ])("command: %s is refused", (_n, input, path) => {
    const r = commandSchema.safeParse(input);
    expect(r.success).toBe(false);
    expect(issues(r).some((i) => i.startsWith(path))).toBe(true);
  });

  it("create: the rollout id is restricted to a safe alphabet", () => {
    const base = {
      type: "create",
      key: "k",
      actor: operator,
      title: "t",
      input: { change: { kind: "doublewrite-off" }, instances: [mysql("a", "replica")] },
    };
    expect(createCommandSchema.safeParse({ ...base, id: "r-2026.11_a" }).success).toBe(true);
    expect(issues(createCommandSchema.safeParse({ ...base, id: "../etc" }))[0]).toMatch(/^id:/);
  });

  it("observations: a read-back with a negative rate or a bake with mismatched series is refused", () => {
    expect(
      observationsSchema.safeParse({
        readBacks: [
          {
            instance: "a",
            at: 1,
            up: true,
            doublewriteMode: "off",
            configInfo: null,
            doublewritePages: null,
            doublewritePagesPerSecond: -1,
            uptimeSeconds: null,
          },
        ],
      }).success,
    ).toBe(false);
    const r = observationsSchema.safeParse({
      bakes: [
        {
          wave: 0,
          windows: { before: { start: 0, end: 1 }, after: { start: 1, end: 2 } },
          instances: [{ id: "a", series: { m: { before: { t: [1, 2], v: [1] }, after: { t: [], v: [] } } } }],
        },
      ],
    });
    expect(issues(r).join(" ")).toContain("t and v must have the same length");
  });
});
