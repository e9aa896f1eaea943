import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Alertmanager,
  parseNotification,
  renderAlertmanagerConfig,
  startAlertmanager,
  startWebhookReceiver,
  type WebhookReceiver,
} from "./alertmanager.js";

describe("parseNotification", () => {
  it("names the first field that is wrong", () => {
    expect(() => parseNotification("[]")).toThrow(/not a JSON object/);
    expect(() => parseNotification('{"status":"firing"}')).toThrow(/alerts is not an array/);
    expect(() => parseNotification('{"status":"firing","alerts":[{"status":"up"}]}')).toThrow(
      /alerts\[0\]\.status is "up"/,
    );
    expect(() =>
      parseNotification(
        '{"status":"firing","alerts":[{"status":"firing","labels":{"a":1},"annotations":{}}]}',
      ),
    ).toThrow(/alerts\[0\]\.labels\.a is not a string/);
    expect(() => parseNotification("{")).toThrow(SyntaxError);
  });
});

describe("renderAlertmanagerConfig", () => {
  it("routes everything to the webhook, resolved notifications included", () => {
    const yml = renderAlertmanagerConfig({ webhookUrl: "http://127.0.0.1:1/hook" });
    expect(yml).toContain('- url: "http://127.0.0.1:1/hook"');
    expect(yml).toContain("send_resolved: true");
    expect(yml).toContain('group_wait: "1s"');
  });
});

describe("Alertmanager to the webhook receiver", () => {
  let receiver: WebhookReceiver;
  let am: Alertmanager;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    am = await startAlertmanager({ webhookUrl: receiver.url });
  });
  afterAll(async () => {
    await am?.stop();
    await receiver?.close();
  });

  it("delivers an alert posted to Alertmanager's API, and its resolution", async () => {
    const alert = (endsAt?: string) => [
      {
        labels: { alertname: "TestkitProbe", instance: "db9", severity: "warning" },
        annotations: { summary: "probe on db9" },
        ...(endsAt ? { endsAt } : {}),
      },
    ];
    const post = (body: unknown) =>
      fetch(`${am.url}/api/v2/alerts`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    expect((await post(alert())).status).toBe(200);
    const firing = await receiver.waitForAlert("probe firing", (a) => a.labels["instance"] === "db9", 20_000);
    expect(firing.alert.status).toBe("firing");
    expect(firing.alert.annotations["summary"]).toBe("probe on db9");
    expect((await post(alert(new Date(Date.now() - 1000).toISOString()))).status).toBe(200);
    await receiver.waitForAlert("probe resolved", (a) => a.status === "resolved", 20_000);
    // A body that is not a notification is refused and kept for the test to see.
    const bad = await fetch(receiver.url, { method: "POST", body: "{}" });
    expect(bad.status).toBe(400);
    expect(receiver.rejected).toHaveLength(1);
  });
});
