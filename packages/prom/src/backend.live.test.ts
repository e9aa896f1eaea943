// Which backend answers, against the real servers: Prometheus and Debian's VictoriaMetrics, the latter
// with its default -search.latencyOffset, a changed one, and none.

import { type Prometheus, startPrometheus } from "@untorn/testkit/prometheus";
import { startVictoriaMetrics, type VictoriaMetrics } from "@untorn/testkit/victoria-metrics";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { latencyOffsetFromFlags, PromClient, VM_DEFAULT_LATENCY_OFFSET_SECONDS } from "./client.js";
import { startHttpPeer } from "./testing/http-peer.js";

describe("latencyOffsetFromFlags", () => {
  it.each([
    ['-httpListenAddr="127.0.0.1:1"\n-search.latencyOffset="45s"\n', 45],
    ["-search.latencyOffset=1m30s\n", 90],
    ['-search.latencyOffset="0s"', 0],
    ['-storageDataPath="/d"\n', null],
    ["<html>Prometheus flags page</html>", null],
    ['-search.latencyOffset="soon"', null],
  ])("%j → %s", (text, seconds) => {
    expect(latencyOffsetFromFlags(text)).toBe(seconds);
  });
});

describe("backend() against real servers", () => {
  let prometheus: Prometheus | undefined;
  const vms: VictoriaMetrics[] = [];
  let vmDefault: VictoriaMetrics;
  let vmZero: VictoriaMetrics;
  let vm45: VictoriaMetrics;

  beforeAll(async () => {
    prometheus = await startPrometheus({ jobs: [] });
    [vmDefault, vmZero, vm45] = await Promise.all([
      startVictoriaMetrics({ latencyOffset: null }),
      startVictoriaMetrics(),
      startVictoriaMetrics({ latencyOffset: "45s" }),
    ]);
    vms.push(vmDefault, vmZero, vm45);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([prometheus?.stop(), ...vms.map((v) => v.stop())]);
  });

  it("Prometheus: no delay, its version", async () => {
    const b = await new PromClient({ baseUrl: prometheus!.url }).backend();
    expect(b).toMatchObject({ kind: "prometheus", queryDelaySeconds: 0, note: null });
    expect(b.version).toMatch(/^\d+\.\d+/);
  });

  it("VictoriaMetrics: its latency offset, default or set", async () => {
    expect(await new PromClient({ baseUrl: vmDefault.url }).backend()).toMatchObject({
      kind: "victoriametrics",
      queryDelaySeconds: VM_DEFAULT_LATENCY_OFFSET_SECONDS,
    });
    expect(await new PromClient({ baseUrl: vm45.url }).backend()).toMatchObject({
      kind: "victoriametrics",
      queryDelaySeconds: 45,
      note: expect.stringContaining("45 s"),
    });
    expect(await new PromClient({ baseUrl: vmZero.url }).backend()).toMatchObject({
      kind: "victoriametrics",
      queryDelaySeconds: 0,
      note: null,
    });
  });

  it("on default VictoriaMetrics, defaultTime() reads what Prometheus would read at that time; the wall clock does not", async () => {
    // Prometheus answers an instant query with the newest sample at or before its time. Default
    // VictoriaMetrics hides samples younger than 30 s at any query time.
    const wallAtImport = Math.floor(Date.now() / 1000);
    await vmDefault.importPrometheus(
      `untorn_backend_test_gauge 1 ${(wallAtImport - 50) * 1000}\nuntorn_backend_test_gauge 7 ${(wallAtImport - 5) * 1000}\n`,
    );
    await vmDefault.flush();
    const client = new PromClient({ baseUrl: vmDefault.url });
    expect(Math.floor(client.defaultTime())).toBeGreaterThanOrEqual(wallAtImport);
    const value = async (time: number) =>
      (await client.queryVector("untorn_backend_test_gauge", { time })).data.map((s) => s.value);
    // At the wall clock Prometheus would say 7; this VictoriaMetrics still says 1 (while the second
    // sample is younger than 30 s, which a test machine this slow could miss: then it is not checked).
    const wall = Math.floor(Date.now() / 1000);
    const atWall = await value(wall);
    if (wall < wallAtImport + 20) expect(atWall).toEqual([1]);
    await client.backend();
    const now = Math.floor(client.defaultTime());
    expect(Math.floor(Date.now() / 1000) - now).toBeGreaterThanOrEqual(VM_DEFAULT_LATENCY_OFFSET_SECONDS - 1);
    // At defaultTime() the newest sample at or before it is the first one (unless the test ran 25 s late,
    // when both read 7): VictoriaMetrics agrees with that rule.
    const expected = now >= wallAtImport - 5 ? [7] : [1];
    expect(await value(now)).toEqual(expected);
  });

  it("a server that answers neither endpoint as expected is an error naming the endpoint", async () => {
    const peer = await startHttpPeer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html>not an API</html>");
    });
    try {
      await expect(
        new PromClient({ baseUrl: `http://127.0.0.1:${peer.port}`, retries: 0 }).backend(),
      ).rejects.toThrow(/buildinfo/);
    } finally {
      await peer.close();
    }
  });
});
