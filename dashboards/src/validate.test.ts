/**
 * Checks the committed dashboards and provisioning files against Grafana's documented formats (zod
 * schemas mirroring @grafana/schema and the file-provisioning docs) and the structural rules of
 * validate.ts. Grafana itself does not run here: rendering and Grafana's own migrations are not checked.
 */

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { alertNames, alertRules } from "@untorn/catalog/alerts";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { PACKAGE_DIR } from "./generate.js";
import { DASHBOARD_UIDS, DATASOURCE_UID } from "./house.js";
import { grafanaTemplate, PROVISIONING_FILES } from "./provisioning.js";
import { dashboardFile } from "./render.js";
import {
  alertRuleFileSchema,
  checkAlertRules,
  checkDashboard,
  contactPointFileSchema,
  dashboardProviderFileSchema,
  dashboardSchema,
  datasourceFileSchema,
  flatPanels,
  policyFileSchema,
} from "./validate.js";

const uids = Object.values(DASHBOARD_UIDS);
const readJson = async (path: string): Promise<unknown> =>
  JSON.parse(await readFile(join(PACKAGE_DIR, path), "utf8"));
const readYaml = async (path: string): Promise<unknown> =>
  parse(await readFile(join(PACKAGE_DIR, path), "utf8"));

describe.each(uids)("dashboard %s", (uid) => {
  it("matches Grafana's dashboard JSON model", async () => {
    const result = dashboardSchema.safeParse(await readJson(dashboardFile(uid)));
    expect(result.error?.issues ?? []).toEqual([]);
    expect(result.data?.uid).toBe(uid);
  });

  it("passes the structural checks (grid, ids, variables, queries, links)", async () => {
    const d = dashboardSchema.parse(await readJson(dashboardFile(uid)));
    expect(checkDashboard(d, uids)).toEqual([]);
    expect(d.templating.list.map((v) => v.name)).toEqual(
      expect.arrayContaining(["datasource", "cluster", "instance"]),
    );
    expect(flatPanels(d).length).toBeGreaterThan(5);
  });
});

describe("structural checks", () => {
  const base = async () => dashboardSchema.parse(await readJson(dashboardFile(DASHBOARD_UIDS.instance)));

  it("catch overlapping panels, undefined variables, unknown signals and bad PromQL", async () => {
    const d = await base();
    const panels = flatPanels(d);
    const [first, second] = panels;
    if (!first || !second) throw new Error("too few panels");
    second.gridPos = { ...first.gridPos };
    first.title = "Writes on $nosuch";
    const target = panels[5]?.targets[0];
    if (!target) throw new Error("no target");
    target.refId = "not_a_signal";
    target.expr = "sum by (instance (rate(x[5m]))";
    const problems = checkDashboard(d, uids).join("\n");
    expect(problems).toContain("overlaps");
    expect(problems).toContain("undefined variable $nosuch");
    expect(problems).toContain("names no catalog signal");
    expect(problems).toContain("PromQL syntax error");
  });

  it("catch a rollout panel that reads a series its console signal does not name", async () => {
    const d = dashboardSchema.parse(await readJson(dashboardFile(DASHBOARD_UIDS.fleet)));
    const target = flatPanels(d)
      .flatMap((p) => p.targets)
      .find((t) => t.refId === "console_rollouts_by_status");
    if (!target) throw new Error("no rollouts-by-status query on the fleet dashboard");
    expect(checkDashboard(d, uids)).toEqual([]);
    target.expr = "max by (status) (untorn_console_rollouts_typo)";
    expect(checkDashboard(d, uids).join("\n")).toContain(
      "reads untorn_console_rollouts_typo, not a series of console signal console_rollouts_by_status",
    );
  });

  it("catch links to dashboards that do not exist", async () => {
    const d = dashboardSchema.parse(await readJson(dashboardFile(DASHBOARD_UIDS.fleet)));
    expect(checkDashboard(d, [DASHBOARD_UIDS.fleet]).join("\n")).toContain(
      "link to unknown dashboard untorn-instance",
    );
  });

  it("reject a dashboard JSON that breaks the model", async () => {
    const d = (await readJson(dashboardFile(DASHBOARD_UIDS.fleet))) as Record<string, unknown>;
    expect(dashboardSchema.safeParse({ ...d, uid: "a uid with spaces" }).success).toBe(false);
    expect(
      dashboardSchema.safeParse({ ...d, panels: [{ type: "graph", id: 1, title: "old" }] }).success,
    ).toBe(false);
  });
});

describe("provisioning files", () => {
  it("provision the datasource the dashboards and alert rules use", async () => {
    const file = datasourceFileSchema.parse(await readYaml(PROVISIONING_FILES.datasource));
    expect(file.datasources.map((d) => d.uid)).toEqual([DATASOURCE_UID]);
    expect(file.datasources[0]?.type).toBe("prometheus");
  });

  it("provide the dashboards from a file provider", async () => {
    const file = dashboardProviderFileSchema.parse(await readYaml(PROVISIONING_FILES.dashboards));
    expect(file.providers).toHaveLength(1);
  });

  it("ship every catalog alert as a Grafana-managed rule in the documented file format", async () => {
    const file = alertRuleFileSchema.parse(await readYaml(PROVISIONING_FILES.alertRules));
    expect(checkAlertRules(file, [DATASOURCE_UID])).toEqual([]);
    const rules = file.groups.flatMap((g) => g.rules);
    expect(rules.map((r) => r.title)).toEqual(alertNames);
    for (const a of alertRules) {
      const r = rules.find((x) => x.title === a.name);
      expect(r?.data[0]?.model["expr"]).toBe(a.expr);
      expect(r?.for).toBe(a.for);
      expect(r?.labels).toEqual({ severity: a.severity });
      expect(r?.annotations["description"]).toBe(grafanaTemplate(a.description));
    }
  });

  it("route alerts to a provisioned contact point", async () => {
    const points = contactPointFileSchema.parse(await readYaml(PROVISIONING_FILES.contactPoints));
    const policies = policyFileSchema.parse(await readYaml(PROVISIONING_FILES.policies));
    const names = points.contactPoints.map((c) => c.name);
    const receivers = (r: { receiver?: string | undefined; routes?: unknown[] | undefined }): string[] => [
      ...(r.receiver ? [r.receiver] : []),
      ...((r.routes ?? []) as (typeof r)[]).flatMap(receivers),
    ];
    for (const p of policies.policies) for (const name of receivers(p)) expect(names).toContain(name);
  });

  it("are caught when an alert condition or template is wrong", async () => {
    const file = alertRuleFileSchema.parse(await readYaml(PROVISIONING_FILES.alertRules));
    const rule = file.groups[0]?.rules[0];
    if (!rule) throw new Error("no rule");
    rule.condition = "C";
    rule.annotations["summary"] = "{{ $value }}";
    const problems = checkAlertRules(file, [DATASOURCE_UID]).join("\n");
    expect(problems).toContain("condition C names no query");
    expect(problems).toContain("Prometheus-only $value");
    expect(checkAlertRules(file, ["other"]).join("\n")).toContain("unknown datasource");
  });
});

describe("Grafana templates", () => {
  it("read the query value where Prometheus reads $value", () => {
    expect(grafanaTemplate("{{ $value | humanize }} on {{ $labels.instance }}")).toBe(
      "{{ $values.A.Value | humanize }} on {{ $labels.instance }}",
    );
  });
});
