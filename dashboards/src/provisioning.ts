/**
 * Grafana provisioning files (dashboards/provisioning), in Grafana's documented file-provisioning
 * formats: the Prometheus datasource, the dashboard provider, the Grafana-managed alert rules (from the
 * same catalog definitions as the Prometheus rules), an example contact point and notification policy,
 * and an example prometheus.yml that scrapes the three exporters under one `instance` name.
 */

import { type AlertRule, alertRules, runbookUrl } from "@untorn/catalog/alerts";
import { SCRAPE_INTERVAL_SECONDS } from "@untorn/catalog/rate-window";
import { DATASOURCE_UID, TAG } from "./house.js";
import { ALERT_RULES_FILE, alertComment, RECORDING_RULES_FILE } from "./prometheus-rules.js";
import { type CommentAt, GENERATED_HEADER, toYaml } from "./yaml.js";

export const FOLDER = "Untorn";
export const DASHBOARDS_PATH = "/var/lib/grafana/dashboards/untorn";
export const PROMETHEUS_URL = "http://prometheus:9090";
/** Prometheus scrape interval the example config uses; the datasource's timeInterval must match it. */
export const SCRAPE_INTERVAL = `${SCRAPE_INTERVAL_SECONDS}s`;
export const CONTACT_POINT = "untorn-dba";

export const PROVISIONING_FILES = {
  datasource: "provisioning/datasources/untorn.yaml",
  dashboards: "provisioning/dashboards/untorn.yaml",
  alertRules: "provisioning/alerting/untorn-alert-rules.yaml",
  contactPoints: "provisioning/alerting/untorn-contact-points.yaml",
  policies: "provisioning/alerting/untorn-notification-policies.yaml",
  prometheus: "provisioning/prometheus/prometheus.yml",
} as const;

export function datasourceProvisioning() {
  return {
    apiVersion: 1,
    datasources: [
      {
        name: "Prometheus (Untorn)",
        uid: DATASOURCE_UID,
        type: "prometheus",
        access: "proxy",
        url: PROMETHEUS_URL,
        // Not the default: dropped into an existing Grafana it must not take over, or clash with, the
        // organisation's default datasource. Untorn's dashboards and alerts name it by uid.
        isDefault: false,
        editable: false,
        // timeInterval = the scrape interval, so $__rate_interval covers at least 4 scrapes.
        jsonData: { timeInterval: SCRAPE_INTERVAL, httpMethod: "POST" },
      },
    ],
  };
}

export function dashboardProvider() {
  return {
    apiVersion: 1,
    providers: [
      {
        name: "untorn",
        orgId: 1,
        folder: FOLDER,
        folderUid: TAG,
        type: "file",
        disableDeletion: false,
        allowUiUpdates: false,
        updateIntervalSeconds: 60,
        options: { path: DASHBOARDS_PATH, foldersFromFilesStructure: false },
      },
    ],
  };
}

/** Prometheus template → Grafana template: Grafana has $values.<refId>.Value where Prometheus has $value. */
export const grafanaTemplate = (t: string): string => t.replace(/\$value\b/g, "$values.A.Value");

/**
 * The query returns only firing series, as in Prometheus, with values >= 0; the math expression turns
 * every returned series into 1 (firing). No series means normal, hence noDataState OK.
 */
export const FIRING_CONDITION = "$A >= 0";

export function grafanaRule(a: AlertRule) {
  return {
    uid: a.runbook,
    title: a.name,
    condition: "B",
    data: [
      {
        refId: "A",
        relativeTimeRange: { from: 900, to: 0 },
        datasourceUid: DATASOURCE_UID,
        model: {
          refId: "A",
          datasource: { type: "prometheus", uid: DATASOURCE_UID },
          expr: a.expr,
          instant: true,
          range: false,
          intervalMs: 60_000,
          maxDataPoints: 43_200,
        },
      },
      {
        refId: "B",
        relativeTimeRange: { from: 0, to: 0 },
        datasourceUid: "__expr__",
        model: {
          refId: "B",
          datasource: { type: "__expr__", uid: "__expr__" },
          type: "math",
          expression: FIRING_CONDITION,
        },
      },
    ],
    noDataState: "OK",
    execErrState: "Error",
    for: a.for,
    annotations: {
      summary: grafanaTemplate(a.summary),
      description: grafanaTemplate(a.description),
      runbook_url: runbookUrl(a),
    },
    labels: { severity: a.severity },
    isPaused: false,
  };
}

export function alertRuleProvisioning() {
  return {
    apiVersion: 1,
    groups: [
      { orgId: 1, name: "untorn", folder: FOLDER, interval: "1m", rules: alertRules.map(grafanaRule) },
    ],
  };
}

export function contactPoints() {
  return {
    apiVersion: 1,
    contactPoints: [
      {
        orgId: 1,
        name: CONTACT_POINT,
        receivers: [
          {
            uid: "untorn-dba-email",
            type: "email",
            settings: { addresses: "dba-oncall@example.com", singleEmail: true },
            disableResolveMessage: false,
          },
        ],
      },
    ],
  };
}

export function notificationPolicies() {
  return {
    apiVersion: 1,
    policies: [
      {
        orgId: 1,
        receiver: CONTACT_POINT,
        group_by: ["grafana_folder", "alertname", "instance"],
        group_wait: "30s",
        group_interval: "5m",
        repeat_interval: "4h",
        routes: [
          {
            receiver: CONTACT_POINT,
            object_matchers: [["severity", "=", "critical"]],
            group_wait: "10s",
            repeat_interval: "1h",
          },
        ],
      },
    ],
  };
}

/** Example: one database host db1 with all three exporters, and one SQL-only managed database via /probe. */
export function prometheusExample() {
  const db1 = { instance: "db1", cluster: "main" };
  return {
    global: { scrape_interval: SCRAPE_INTERVAL, evaluation_interval: "1m" },
    rule_files: [`../../${RECORDING_RULES_FILE}`, `../../${ALERT_RULES_FILE}`],
    scrape_configs: [
      { job_name: "untorn", static_configs: [{ targets: ["db1.example.com:9105"], labels: db1 }] },
      { job_name: "mysqld", static_configs: [{ targets: ["db1.example.com:9104"], labels: db1 }] },
      { job_name: "node", static_configs: [{ targets: ["db1.example.com:9100"], labels: db1 }] },
      {
        job_name: "untorn-probe",
        metrics_path: "/probe",
        params: { auth_module: ["client.managed"] },
        static_configs: [
          { targets: ["db2.abc123.eu-west-1.rds.amazonaws.com:3306"], labels: { cluster: "main" } },
        ],
        relabel_configs: [
          { source_labels: ["__address__"], target_label: "__param_target" },
          { source_labels: ["__param_target"], regex: "([^.:]+).*", target_label: "instance" },
          { target_label: "__address__", replacement: "untorn-exporter.example.com:9105" },
        ],
      },
    ],
  };
}

const note = (text: string): string => `${GENERATED_HEADER}\n ${text}`;

/** Every provisioning file, path relative to dashboards/ → content. */
export function provisioningFiles(): Map<string, string> {
  const alertComments: CommentAt[] = alertRules.map((a, i) => [["groups", 0, "rules", i], alertComment(a)]);
  return new Map([
    [
      PROVISIONING_FILES.datasource,
      toYaml(datasourceProvisioning(), note("Grafana datasource provisioning.")),
    ],
    [
      PROVISIONING_FILES.dashboards,
      toYaml(
        dashboardProvider(),
        note(`Mount dashboards/generated/*.json at ${DASHBOARDS_PATH} in the Grafana container.`),
      ),
    ],
    [
      PROVISIONING_FILES.alertRules,
      toYaml(
        alertRuleProvisioning(),
        note(
          "Grafana-managed alert rules, the same definitions as generated/prometheus/untorn-alert-rules.yml.\n The datasource's Prometheus must load generated/prometheus/untorn-recording-rules.yml: the rules read its series.",
        ),
        alertComments,
      ),
    ],
    [
      PROVISIONING_FILES.contactPoints,
      toYaml(contactPoints(), note("Example contact point: replace the address, or the whole receiver.")),
    ],
    [
      PROVISIONING_FILES.policies,
      toYaml(
        notificationPolicies(),
        note(
          "Example notification policy. Provisioning a policy tree REPLACES the organisation's whole tree:\n merge these routes into yours instead if you already route alerts.",
        ),
      ),
    ],
    [
      PROVISIONING_FILES.prometheus,
      toYaml(
        prometheusExample(),
        note(
          "Example Prometheus configuration. Every exporter of one database must carry the same `instance`\n label (here a static label; Prometheus keeps it instead of host:port), or signals cannot combine them.",
        ),
      ),
    ],
  ]);
}
