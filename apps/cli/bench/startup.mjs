#!/usr/bin/env node
// How long `untorn --help` takes to answer, as a ratio against bare Node's own start-up (the floor any
// Node CLI pays), measured side by side: the runs of each command alternate, so a machine whose speed
// drifts slows them alike. Three commands: the built CLI (`npm run build -w @untorn/cli`, what `npx untorn`
// runs once built), the same `--help` from the TypeScript sources through tsx (what `npx untorn` runs
// before any build), and `node -e 0`. Writes bench/results/cli-startup.json.
//
//   node apps/cli/bench/startup.mjs [--runs 15]
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..", "..");
const { values } = parseArgs({ options: { runs: { type: "string", default: "15" } } });
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 3 || runs > 200) {
  process.stderr.write(`--runs must be a whole number from 3 to 200, got ${values.runs}\n`);
  process.exit(2);
}
const built = join(here, "..", "dist", "main.js");
if (!existsSync(built)) {
  process.stderr.write(`${built} is missing: build the CLI first (npm run build -w @untorn/cli)\n`);
  process.exit(1);
}
const tsx = import.meta.resolve("tsx");
const commands = {
  "node -e 0": [process.execPath, "-e", "0"],
  "untorn --help (built)": [process.execPath, built, "--help"],
  "untorn --help (sources, tsx)": [
    process.execPath,
    "--conditions=@untorn/source",
    "--import",
    tsx,
    join(here, "..", "src", "main.ts"),
    "--help",
  ],
};

/** Wall milliseconds of one run; throws when the command fails (a bench of a failing command is no bench). */
function once([cmd, ...args]) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { cwd: root, encoding: "utf8" });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${[cmd, ...args].join(" ")} exited ${r.status}: ${r.stderr}`);
  if (args.includes("--help") && !/Usage: untorn/.test(r.stdout)) throw new Error("--help printed no usage");
  return ms;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const times = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
const loadBefore = loadavg()[0];
// One warm-up round (file cache), not counted.
for (const argv of Object.values(commands)) once(argv);
for (let i = 0; i < runs; i++) {
  for (const [name, argv] of Object.entries(commands)) {
    times[name].push(once(argv));
    process.stderr.write(`\r${i + 1}/${runs} ${name.padEnd(30)}`);
  }
}
process.stderr.write("\n");
const floor = median(times["node -e 0"]);
const result = {
  what: "wall ms per run, median of alternating runs; ratio = median ÷ bare Node's median",
  date: new Date().toISOString(),
  node: process.version,
  runs,
  load: { before: loadBefore, after: loadavg()[0] },
  commands: Object.fromEntries(
    Object.entries(times).map(([name, xs]) => [
      name,
      {
        medianMs: Math.round(median(xs)),
        minMs: Math.round(Math.min(...xs)),
        maxMs: Math.round(Math.max(...xs)),
        ratioToNode: Math.round((median(xs) / floor) * 100) / 100,
      },
    ]),
  ),
};
const out = join(root, "bench", "results", "cli-startup.json");
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
for (const [name, r] of Object.entries(result.commands))
  console.log(`${name.padEnd(30)} ${String(r.medianMs).padStart(6)} ms  ${r.ratioToNode}× node`);
console.log(`wrote ${out}`);
