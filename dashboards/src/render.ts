/**
 * Every generated file, rendered in memory: path relative to dashboards/ → content. generate.ts writes
 * them; the regeneration test compares them with the committed files.
 */

import type * as dashboard from "@grafana/grafana-foundation-sdk/dashboard";
import { fleetDashboard } from "./fleet.js";
import { DASHBOARD_UIDS } from "./house.js";
import { instanceDashboard } from "./instance.js";
import { METRICS_DOC, metricsDoc } from "./metrics-doc.js";
import {
  ALERT_RULES_FILE,
  alertRulesYaml,
  RECORDING_RULES_FILE,
  recordingRulesYaml,
} from "./prometheus-rules.js";
import { provisioningFiles } from "./provisioning.js";
import { rolloutDashboard } from "./rollout.js";

export const dashboardFile = (uid: string): string => `generated/${uid}.json`;

export function dashboards(): Map<string, dashboard.Dashboard> {
  return new Map([
    [DASHBOARD_UIDS.fleet, fleetDashboard()],
    [DASHBOARD_UIDS.instance, instanceDashboard()],
    [DASHBOARD_UIDS.rollout, rolloutDashboard()],
  ]);
}

export function renderAll(): Map<string, string> {
  const files = new Map<string, string>();
  for (const [uid, d] of dashboards()) files.set(dashboardFile(uid), `${JSON.stringify(d, null, 2)}\n`);
  files.set(RECORDING_RULES_FILE, recordingRulesYaml());
  files.set(ALERT_RULES_FILE, alertRulesYaml());
  for (const [path, content] of provisioningFiles()) files.set(path, content);
  files.set(METRICS_DOC, metricsDoc());
  return files;
}
