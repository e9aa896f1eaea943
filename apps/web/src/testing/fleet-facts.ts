/** Fleet facts from fake replays, for tests of the snapshot, the merge and the read API. */

import { buildFleetFacts, type FleetFacts } from "@untorn/fleet/facts";
import { buildSnapshot } from "@untorn/fleet/pipeline";
import { ReplayApi, type ReplayFile, replayFactsOptions } from "@untorn/fleet/replay";
import type { FakeInstance } from "@untorn/fleet/testing/fake-api";
import { fakeReplay } from "@untorn/fleet/testing/fake-api";
import { SMALL_FLEET } from "@untorn/fleet/testing/fake-fleet";
import type { InstanceMetadata } from "@untorn/store/store";
import { webRows } from "../lib/fleet-row.js";
import type { Snapshot } from "../server/fleet/data.js";

/** Last evaluation time of the fake recordings: 2026-11-18T11:06:40Z. */
export const END = 1_795_000_000;

export function smallReplay(instances: readonly FakeInstance[] = SMALL_FLEET): ReplayFile {
  return fakeReplay(instances, {
    window: "1h",
    times: [END - 300, END],
    chart: { start: END - 3 * 3600, end: END, step: 60 },
  });
}

export async function factsOf(instances: readonly FakeInstance[] = SMALL_FLEET): Promise<FleetFacts> {
  const api = new ReplayApi(smallReplay(instances));
  return buildFleetFacts(api, replayFactsOptions(api.meta));
}

/** The console's snapshot of the small fleet, with nothing stored or declared (`over`'s times on top). */
export async function smallSnapshot(
  over: { readonly fetchedAt?: number; readonly fetchMs?: number } = {},
): Promise<Snapshot> {
  return buildSnapshot({
    fleet: await factsOf(),
    rowsOf: webRows,
    metadata: [] as InstanceMetadata[],
    storeProblem: null,
    fetchedAt: 0,
    fetchMs: 0,
    window: "1h",
    ...over,
  });
}

/** A stored metadata row for `instance`, empty but for `over`. */
export const storedMetadata = (instance: string, over: Partial<InstanceMetadata> = {}): InstanceMetadata => ({
  instance,
  cluster: null,
  role: null,
  notes: "",
  storageClass: null,
  storageFacts: {},
  managedService: null,
  createdAt: new Date(0),
  updatedAt: new Date(0),
  updatedBy: "test",
  version: 1,
  ...over,
});
