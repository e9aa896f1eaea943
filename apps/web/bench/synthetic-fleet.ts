/**
 * A synthetic fleet-sized replay file for the benchmark: @untorn/fleet's fakeReplay answers for a few
 * dozen varied members (loads, storage, flavor, doublewrite on/off), cloned under new instance labels
 * until the fleet has `size` instances. Only the fleet-wide query texts are kept: that is what the
 * fleet page, the API and the instance pages read (instance pages read the fleet snapshot); the
 * one-instance texts a recording also carries grow with fleet size × plan size and are left out.
 * Written as gzip JSON in the replay format, without building the whole file as objects.
 */

import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { createGzip } from "node:zlib";
import { REPLAY_FORMAT, REPLAY_VERSION, type ReplayFile } from "@untorn/fleet/replay";
import type { FakeInstance } from "@untorn/fleet/testing/fake-api";
import { fakeReplay } from "@untorn/fleet/testing/fake-api";
import { fakeInstance, type Load } from "@untorn/fleet/testing/fake-fleet";

/** mulberry32: a small deterministic PRNG. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A third idle, a quarter write-heavy, 15% doublewrite off, 20% on verified atomic storage. */
export function templates(count: number, seed = 7): FakeInstance[] {
  const r = prng(seed);
  return Array.from({ length: count }, (_, i) => {
    const kind = r();
    const idle = kind < 0.33;
    const heavy = kind > 0.75;
    const flushed = idle ? r() * 0.5 : heavy ? 1500 + r() * 2500 : 50 + r() * 400;
    const load: Load = {
      flushed,
      txn: idle ? r() : flushed / (2 + r() * 4),
      waitFree: heavy ? r() * 20 : 0,
      util: idle ? r() * 0.05 : heavy ? 0.7 + r() * 0.29 : 0.1 + r() * 0.4,
      writeLatency: heavy ? 0.003 + r() * 0.01 : 0.0005 + r() * 0.001,
    };
    return fakeInstance(`template-${i}`, {
      load,
      flavor: r() < 0.4 ? "mysql" : "mariadb",
      doublewrite: r() < 0.85,
      storage: r() < 0.2 ? "atomic" : "plain",
      charts: false,
    });
  });
}

export interface SyntheticOptions {
  readonly size: number;
  readonly templates?: number;
  /** Last evaluation time, Unix seconds. */
  readonly end: number;
  readonly window?: string;
}

export const instanceName = (i: number, size: number) =>
  `db-${String(i).padStart(String(size - 1).length, "0")}`;

/** Writes the replay file; returns the number of samples written. */
export async function writeSyntheticReplay(file: string, o: SyntheticOptions): Promise<{ samples: number }> {
  const members = templates(o.templates ?? 48);
  const base: ReplayFile = fakeReplay(members, { window: o.window ?? "1h", times: [o.end] });
  const names = Array.from({ length: o.size }, (_, i) => instanceName(i, o.size));
  const out = createGzip({ level: 6 });
  const sink = createWriteStream(file);
  out.pipe(sink);
  let pending: string[] = [];
  let pendingChars = 0;
  const flush = async () => {
    if (pending.length === 0) return;
    const ok = out.write(pending.join(""));
    pending = [];
    pendingChars = 0;
    if (!ok) await once(out, "drain");
  };
  const write = async (s: string) => {
    pending.push(s);
    pendingChars += s.length;
    if (pendingChars > 1 << 20) await flush();
  };
  let samples = 0;
  const meta = {
    ...base.meta,
    instances: names,
    tool: "untorn web bench (synthetic)",
    note: `${o.size} instances cloned from ${members.length} fake members`,
  };
  await write(
    `{"format":${JSON.stringify(REPLAY_FORMAT)},"version":${REPLAY_VERSION},"recorded":true,"meta":${JSON.stringify(meta)},"instant":[`,
  );
  const fleetEntries = base.instant.filter((e) => !e.derived);
  for (const [k, e] of fleetEntries.entries()) {
    const answer = e.answers[0]!;
    const byMember = new Map<string, typeof answer.data>();
    const shared: typeof answer.data = [];
    for (const s of answer.data) {
      const m = s.labels.instance;
      if (m === undefined) shared.push(s);
      else byMember.set(m, [...(byMember.get(m) ?? []), s]);
    }
    await write(
      `${k ? "," : ""}{"query":${JSON.stringify(e.query)},"answers":[{"time":${answer.time},"data":[`,
    );
    let first = true;
    for (const s of shared) {
      await write(`${first ? "" : ","}${JSON.stringify(s)}`);
      first = false;
      samples++;
    }
    for (let i = 0; i < names.length; i++) {
      const member = members[i % members.length]!.instance;
      const chunk: string[] = [];
      for (const s of byMember.get(member) ?? []) {
        chunk.push(JSON.stringify({ labels: { ...s.labels, instance: names[i] }, value: s.value }));
        samples++;
      }
      if (chunk.length) {
        await write(`${first ? "" : ","}${chunk.join(",")}`);
        first = false;
      }
    }
    await write("]}]}");
  }
  await write(`],"range":[]}`);
  await flush();
  out.end();
  await once(sink, "finish");
  return { samples };
}
