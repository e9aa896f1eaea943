import { once } from "node:events";
import { writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { freePort, makeTempDir, removeDir, requireBinary, spawnManaged, waitFor } from "./process.js";

/**
 * Debian's prometheus-alertmanager (0.25 on bookworm) routing every alert to one webhook, and the webhook
 * receiver itself: an HTTP server on 127.0.0.1 that keeps every notification it is sent.
 */

/** One alert in a webhook notification (Alertmanager's webhook payload, version 4). */
export interface WebhookAlert {
  status: "firing" | "resolved";
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  fingerprint?: string;
}

export interface WebhookNotification {
  /** When the receiver got it (ms since the epoch). */
  receivedAt: number;
  version: string;
  status: "firing" | "resolved";
  receiver: string;
  groupLabels: Record<string, string>;
  commonLabels: Record<string, string>;
  alerts: WebhookAlert[];
}

export interface WebhookReceiver {
  readonly url: string;
  /** Every notification so far, oldest first. */
  readonly notifications: readonly WebhookNotification[];
  /** Bodies that were not a webhook notification, with the reason. */
  readonly rejected: readonly string[];
  /** Waits for the first alert (in any notification) that `match` accepts, and returns it with its arrival. */
  waitForAlert(
    what: string,
    match: (a: WebhookAlert) => boolean,
    timeoutMs?: number,
  ): Promise<{ alert: WebhookAlert; receivedAt: number }>;
  close(): Promise<void>;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function stringMap(v: unknown, what: string): Record<string, string> {
  if (!isRecord(v)) throw new Error(`${what} is not an object`);
  for (const [k, x] of Object.entries(v))
    if (typeof x !== "string") throw new Error(`${what}.${k} is not a string`);
  return v as Record<string, string>;
}

function status(v: unknown, what: string): "firing" | "resolved" {
  if (v !== "firing" && v !== "resolved") throw new Error(`${what} is ${JSON.stringify(v)}`);
  return v;
}

/** Checks a webhook body against the fields the tests read; throws with the first field that is wrong. */
export function parseNotification(body: string, receivedAt = Date.now()): WebhookNotification {
  const v: unknown = JSON.parse(body);
  if (!isRecord(v)) throw new Error("body is not a JSON object");
  if (!Array.isArray(v["alerts"])) throw new Error("alerts is not an array");
  const alerts = v["alerts"].map((a: unknown, i: number): WebhookAlert => {
    if (!isRecord(a)) throw new Error(`alerts[${i}] is not an object`);
    return {
      status: status(a["status"], `alerts[${i}].status`),
      labels: stringMap(a["labels"], `alerts[${i}].labels`),
      annotations: stringMap(a["annotations"], `alerts[${i}].annotations`),
      startsAt: String(a["startsAt"]),
      endsAt: String(a["endsAt"]),
      ...(typeof a["fingerprint"] === "string" ? { fingerprint: a["fingerprint"] } : {}),
    };
  });
  return {
    receivedAt,
    version: String(v["version"]),
    status: status(v["status"], "status"),
    receiver: String(v["receiver"]),
    groupLabels: stringMap(v["groupLabels"] ?? {}, "groupLabels"),
    commonLabels: stringMap(v["commonLabels"] ?? {}, "commonLabels"),
    alerts,
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Starts the webhook receiver on a free loopback port; POST /hook takes notifications. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const notifications: WebhookNotification[] = [];
  const rejected: string[] = [];
  const server = createServer((req, res) => {
    if (req.method !== "POST" || req.url !== "/hook") {
      res.writeHead(404).end();
      return;
    }
    readBody(req)
      .then((body) => {
        try {
          notifications.push(parseNotification(body));
          res.writeHead(200).end();
        } catch (err) {
          rejected.push(`${(err as Error).message}: ${body.slice(0, 500)}`);
          res.writeHead(400).end();
        }
      })
      .catch(() => res.writeHead(500).end());
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    notifications,
    rejected,
    waitForAlert: (what, match, timeoutMs = 60_000) =>
      waitFor(
        `webhook notification: ${what}`,
        () => {
          for (const n of notifications) {
            const alert = n.alerts.find(match);
            if (alert) return { alert, receivedAt: n.receivedAt };
          }
          return undefined;
        },
        {
          timeoutMs,
          intervalMs: 100,
          detail: () =>
            `received so far: ${JSON.stringify(notifications.map((n) => n.alerts.map((a) => [a.status, a.labels])))}`,
        },
      ),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface AlertmanagerOptions {
  /** Where every alert goes (a WebhookReceiver's url). */
  webhookUrl: string;
  /** Route timings; defaults suit tests (1 s to first notification, 1 s between updates of a group). */
  groupWait?: string;
  groupInterval?: string;
  repeatInterval?: string;
  groupBy?: string[];
}

export interface Alertmanager {
  readonly url: string;
  /** host:port, for Prometheus' alerting.alertmanagers. */
  readonly address: string;
  readonly configFile: string;
  stop(): Promise<void>;
}

/** Renders alertmanager.yml (JSON values are valid YAML): one route, one webhook receiver, resolved included. */
export function renderAlertmanagerConfig(o: AlertmanagerOptions): string {
  return [
    "route:",
    '  receiver: "webhook"',
    `  group_by: ${JSON.stringify(o.groupBy ?? ["alertname", "instance"])}`,
    `  group_wait: ${JSON.stringify(o.groupWait ?? "1s")}`,
    `  group_interval: ${JSON.stringify(o.groupInterval ?? "1s")}`,
    `  repeat_interval: ${JSON.stringify(o.repeatInterval ?? "1h")}`,
    "receivers:",
    '  - name: "webhook"',
    "    webhook_configs:",
    `      - url: ${JSON.stringify(o.webhookUrl)}`,
    "        send_resolved: true",
    "",
  ].join("\n");
}

/** Starts prometheus-alertmanager on a free loopback port, clustering off. */
export async function startAlertmanager(opts: AlertmanagerOptions): Promise<Alertmanager> {
  const bin = requireBinary("prometheus-alertmanager", "prometheus-alertmanager");
  const dir = await makeTempDir("alertmanager");
  const port = await freePort();
  const configFile = join(dir, "alertmanager.yml");
  await writeFile(configFile, renderAlertmanagerConfig(opts));
  const proc = spawnManaged(
    bin,
    [
      `--config.file=${configFile}`,
      `--storage.path=${join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      // No gossip: an empty address turns high-availability clustering off.
      "--cluster.listen-address=",
    ],
    { logFile: join(dir, "alertmanager.log"), cwd: dir },
  );
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(
      `alertmanager ready on ${url}`,
      async () => {
        if (proc.child.exitCode !== null) throw new Error(`alertmanager exited:\n${proc.tail()}`);
        return (await fetch(`${url}/-/ready`)).ok;
      },
      { timeoutMs: 30_000, detail: () => proc.tail() },
    );
  } catch (err) {
    await proc.stop(2000);
    await removeDir(dir);
    throw err;
  }
  return {
    url,
    address: `127.0.0.1:${port}`,
    configFile,
    async stop() {
      await proc.stop(5000);
      await removeDir(dir);
    },
  };
}
