import { existsSync } from "node:fs";
import { join } from "node:path";
import type { MariaDb } from "./mariadb.js";
import {
  freePort,
  type ManagedProcess,
  makeTempDir,
  removeDir,
  repoRoot,
  requireBinary,
  spawnManaged,
  waitFor,
} from "./process.js";

export interface RunningExporter {
  readonly url: string;
  /** host:port, for Prometheus targets. */
  readonly address: string;
  readonly process: ManagedProcess;
  /** GET a path on the exporter and return status and body. */
  get(path: string, init?: RequestInit): Promise<{ status: number; body: string; headers: Headers }>;
  stop(): Promise<void>;
}

async function startHttpProcess(
  name: string,
  command: string,
  args: (port: number) => string[],
  env: NodeJS.ProcessEnv,
  readyPath: string,
): Promise<RunningExporter> {
  const dir = await makeTempDir(name);
  const port = await freePort();
  const proc = spawnManaged(command, args(port), {
    logFile: join(dir, `${name}.log`),
    env: { ...process.env, ...env },
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(
      `${name} on ${url}`,
      async () => {
        if (proc.child.exitCode !== null) throw new Error(`${name} exited:\n${proc.tail()}`);
        const res = await fetch(`${url}${readyPath}`);
        await res.arrayBuffer();
        return res.status < 500;
      },
      { timeoutMs: 20_000, detail: () => proc.tail() },
    );
  } catch (err) {
    await proc.stop(2000);
    throw err;
  }
  return {
    url,
    address: `127.0.0.1:${port}`,
    process: proc,
    async get(path, init) {
      const res = await fetch(`${url}${path}`, init);
      return { status: res.status, body: await res.text(), headers: res.headers };
    },
    async stop() {
      await proc.stop(5000);
      await removeDir(dir);
    },
  };
}

/** Node flags of the shipped entry points (bin shebang, npm start, Dockerfile). */
export const EXPORTER_NODE_ARGS = ["--max-semi-space-size=1"];

/** The built untorn-exporter entry point (run `npm run build` first; turbo's test task does). */
export function untornExporterMain(): string {
  const main = join(repoRoot(), "exporters", "untorn-exporter", "dist", "main.js");
  if (!existsSync(main)) {
    throw new Error(`${main} is missing: build the exporter first (npm run build -w untorn-exporter)`);
  }
  return main;
}

/** Where and as whom an exporter connects. */
export interface DbLogin {
  socket: string;
  user: string;
  password: string;
}

export interface UntornExporterOptions {
  /** The server to point /metrics at; omitted = no default target (only /probe). */
  db?: DbLogin | Pick<MariaDb, "socket" | "user" | "password">;
  /** Arbitrary extra flags, e.g. ["--collect.host.storage=false"]. */
  args?: string[];
  env?: NodeJS.ProcessEnv;
  /** Flags for node itself; default the ones the shipped entry points use. */
  nodeArgs?: string[];
}

/** Starts untorn-exporter (the compiled one) on a free port. */
export function startUntornExporter(opts: UntornExporterOptions = {}): Promise<RunningExporter> {
  const main = untornExporterMain();
  const dbArgs = opts.db ? [`--mysqld.address=${opts.db.socket}`, `--mysqld.username=${opts.db.user}`] : [];
  return startHttpProcess(
    "untorn-exporter",
    process.execPath,
    (port) => [
      ...(opts.nodeArgs ?? EXPORTER_NODE_ARGS),
      main,
      `--web.listen-address=127.0.0.1:${port}`,
      ...dbArgs,
      ...(opts.args ?? []),
    ],
    { UNTORN_EXPORTER_PASSWORD: opts.db?.password ?? "", ...opts.env },
    "/healthz",
  );
}

/** Debian's prometheus-mysqld-exporter (0.14.0 on bookworm: DATA_SOURCE_NAME, no /probe). */
export function startMysqldExporter(
  db: DbLogin | Pick<MariaDb, "socket" | "user" | "password">,
  collectors: string[] = [],
): Promise<RunningExporter> {
  const bin = requireBinary("prometheus-mysqld-exporter", "prometheus-mysqld-exporter");
  const dsn = `${db.user}${db.password ? `:${db.password}` : ""}@unix(${db.socket})/`;
  return startHttpProcess(
    "mysqld-exporter",
    bin,
    (port) => [`--web.listen-address=127.0.0.1:${port}`, ...collectors.map((c) => `--collect.${c}`)],
    { DATA_SOURCE_NAME: dsn },
    "/",
  );
}

/** Debian's prometheus-node-exporter with only the collectors the tests need. */
export function startNodeExporter(): Promise<RunningExporter> {
  const bin = requireBinary("prometheus-node-exporter", "prometheus-node-exporter");
  return startHttpProcess(
    "node-exporter",
    bin,
    (port) => [
      `--web.listen-address=127.0.0.1:${port}`,
      "--collector.disable-defaults",
      "--collector.diskstats",
      "--collector.filesystem",
      "--collector.cpu",
      "--collector.meminfo",
    ],
    {},
    "/",
  );
}
