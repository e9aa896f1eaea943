/**
 * untorn-exporter beside the throwaway server on a fixed address, so a Prometheus configured before the
 * bench starts can scrape it through every restart (the socket path does not change).
 */
import { join } from "node:path";
import { EXPORTER_NODE_ARGS, untornExporterMain } from "@untorn/testkit/exporters";
import { makeTempDir, removeDir, spawnManaged, waitFor } from "@untorn/testkit/process";

export interface BenchExporter {
  readonly address: string;
  stop(): Promise<void>;
}

export async function startBenchExporter(address: string, socket: string): Promise<BenchExporter> {
  const dir = await makeTempDir("bench-exporter");
  const proc = spawnManaged(
    process.execPath,
    [
      ...EXPORTER_NODE_ARGS,
      untornExporterMain(),
      `--web.listen-address=${address}`,
      `--mysqld.address=${socket}`,
      "--mysqld.username=root",
    ],
    // biome-ignore lint/style/noProcessEnv: the exporter child inherits the environment (PATH), without a password
    { logFile: join(dir, "untorn-exporter.log"), env: { ...process.env, UNTORN_EXPORTER_PASSWORD: "" } },
  );
  const url = `http://${address}`;
  try {
    await waitFor(
      `untorn-exporter on ${url}`,
      async () => {
        if (proc.child.exitCode !== null) throw new Error(`untorn-exporter exited:\n${proc.tail()}`);
        const res = await fetch(`${url}/healthz`);
        await res.arrayBuffer();
        return res.ok;
      },
      { timeoutMs: 20_000, detail: () => proc.tail() },
    );
  } catch (err) {
    await proc.stop(2000);
    await removeDir(dir);
    throw err;
  }
  return {
    address,
    async stop() {
      await proc.stop(5000);
      await removeDir(dir);
    },
  };
}
