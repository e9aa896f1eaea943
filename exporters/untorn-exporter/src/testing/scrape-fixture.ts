// Runs the real Scraper with every database collector against a fixture and renders the exposition in a
// canonical order, for golden files.
import type { Collector, HostPaths } from "../collector.js";
import { COLLECTORS, HOST_COLLECTORS } from "../collectors/index.js";
import { silentLogger } from "../log.js";
import { type QuerySource, Scraper } from "../scrape.js";
import { type Fixture, FixtureSource } from "./fixture-source.js";

/** Every collector that reads the server; host.storage reads this machine's /proc and /sys instead. */
export const DB_COLLECTORS: readonly Collector[] = COLLECTORS.filter((c) => !HOST_COLLECTORS.has(c.name));

/** Host paths no database collector reads; a directory that cannot exist, so a slip shows up as an error. */
const NO_HOST: HostPaths = {
  proc: "/nonexistent/proc",
  sys: "/nonexistent/sys",
  dev: "/nonexistent/dev",
  root: "/nonexistent",
};

export async function scrapeSource(pool: QuerySource, key: string): Promise<{ text: string; up: boolean }> {
  const scraper = new Scraper(silentLogger);
  const { registry, up } = await scraper.scrape({
    key,
    pool,
    collectors: DB_COLLECTORS,
    budgetMs: 10_000,
    collectorTimeoutMs: 10_000,
    host: NO_HOST,
  });
  return { text: await registry.metrics(), up };
}

export async function scrapeFixture(
  fixture: Fixture,
  key = "fixture",
): Promise<{ text: string; up: boolean; statements: string[] }> {
  const source = new FixtureSource(fixture);
  const { text, up } = await scrapeSource(source, key);
  return { text, up, statements: source.statements };
}

const DURATION = "untorn_exporter_collector_duration_seconds";

/**
 * The exposition with collector durations set to 0, metric families sorted by name and samples sorted
 * within each family: collectors finish in any order, so prom-client's registration order is not stable.
 */
export function canonicalExposition(text: string): string {
  const families = new Map<string, { meta: string[]; samples: string[] }>();
  let current: { meta: string[]; samples: string[] } | undefined;
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const meta = /^# (HELP|TYPE) (\S+)/.exec(line);
    if (meta) {
      const name = meta[2]!;
      current = families.get(name);
      if (!current) {
        current = { meta: [], samples: [] };
        families.set(name, current);
      }
      current.meta.push(line);
      continue;
    }
    if (!current) throw new Error(`sample before any # HELP line: ${line}`);
    const sample = line.startsWith(`${DURATION}{`) ? line.replace(/ \S+$/, " 0") : line;
    current.samples.push(sample);
  }
  return [...families.keys()]
    .sort()
    .map((name) => {
      const f = families.get(name)!;
      return [...f.meta, ...f.samples.sort()].join("\n");
    })
    .join("\n")
    .concat("\n");
}
