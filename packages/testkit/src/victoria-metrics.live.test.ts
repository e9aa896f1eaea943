// victoria-metrics scraping through -promscrape.config and vmalert recording live into it: a tiny HTTP
// target serves one counter; the scraped series is readable at "now" (latencyOffset 0) and vmalert's
// recorded rate arrives.

import { writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, makeTempDir, removeDir, waitFor } from "./process.js";
import {
  startVictoriaMetrics,
  startVmalert,
  type VictoriaMetrics,
  type Vmalert,
} from "./victoria-metrics.js";

let server: Server;
let vm: VictoriaMetrics | undefined;
let vmalert: Vmalert | undefined;
let dir = "";
let count = 0;

const query = async (url: string, expr: string) => {
  const res = await fetch(`${url}/api/v1/query?${new URLSearchParams({ query: expr })}`);
  const body = (await res.json()) as {
    data: { result: { metric: Record<string, string>; value: [number, string] }[] };
  };
  return body.data.result;
};

beforeAll(async () => {
  const port = await freePort();
  server = createServer((_req, res) => {
    count += 10;
    res.end(`# TYPE untorn_test_total counter\nuntorn_test_total ${count}\n`);
  });
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  vm = await startVictoriaMetrics({ jobs: [{ jobName: "t", targets: [`127.0.0.1:${port}`] }] });
  dir = await makeTempDir("vmalert-rules");
  const rules = join(dir, "rules.yml");
  await writeFile(
    rules,
    JSON.stringify({
      groups: [
        {
          name: "t",
          rules: [
            {
              record: "instance:untorn_test:rate5m",
              expr: "sum by (instance) (rate(untorn_test_total[5m]))",
            },
          ],
        },
      ],
    }),
  );
  vmalert = await startVmalert({ vmUrl: vm.url, ruleFiles: [rules], evaluationInterval: "1s" });
}, 60_000);

afterAll(async () => {
  await vmalert?.stop();
  await vm?.stop();
  await new Promise((r) => server.close(r));
  if (dir) await removeDir(dir);
});

describe("victoria-metrics and vmalert", () => {
  it("scrapes through -promscrape.config and answers at now", async () => {
    const r = await waitFor(
      "scraped series",
      async () => {
        const x = await query(vm!.url, "untorn_test_total");
        return x.length ? x : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    expect(r[0]!.metric.instance).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(Number(r[0]!.value[1])).toBeGreaterThan(0);
  });

  it("vmalert records the rule's series back into victoria-metrics", async () => {
    const r = await waitFor(
      "recorded series",
      async () => {
        const x = await query(vm!.url, "instance:untorn_test:rate5m");
        return x.length && Number(x[0]!.value[1]) > 0 ? x : undefined;
      },
      { timeoutMs: 45_000, intervalMs: 500 },
    );
    expect(r[0]!.metric.instance).toMatch(/^127\.0\.0\.1:\d+$/);
  });
});
