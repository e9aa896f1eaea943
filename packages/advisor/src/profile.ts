/**
 * Profile: the derived indicators of what doublewrite costs on one instance, each with its unit,
 * formula and the facts it lacked. A missing input makes the indicator null, never 0.
 *
 * The indicators are built by the groups under src/profile/, in the order of src/profile-groups.ts.
 */
import type { Capabilities } from "@untorn/vocabulary/capabilities";
import type { InstanceFacts } from "./facts.js";
import { INDICATOR_IDS, type Indicator, type IndicatorId, type Unit } from "./profile/indicator.js";
import { indicatorGroups } from "./profile-groups.js";

export { INDICATOR_IDS, type Indicator, type IndicatorId, type Unit };

export interface Profile {
  readonly indicators: { readonly [K in IndicatorId]: Indicator };
  /** Data-quality and interpretation notes (e.g. MDEV-31124 correction applied). */
  readonly notes: readonly string[];
}

export function buildProfile(facts: InstanceFacts, caps: Capabilities): Profile {
  // Filled in place, in the order the groups build the indicators (the key order a Map and
  // Object.fromEntries gave, without a Map and its iterator for every instance).
  const indicators: Partial<Record<IndicatorId, Indicator>> = {};
  const notes: string[] = [];
  for (const group of indicatorGroups) {
    const built = (id: IndicatorId): Indicator => {
      const i = Object.hasOwn(indicators, id) ? indicators[id] : undefined;
      if (!group.meta.uses.includes(id) || !i)
        throw new Error(
          `profile group ${group.meta.id} reads ${id} without declaring it in uses, or before it is built`,
        );
      return i;
    };
    const result = group.build({ facts, caps, built });
    for (const i of result.indicators) indicators[i.id] = i;
    if (result.notes) for (const n of result.notes) notes.push(n);
  }
  return { indicators: indicators as Profile["indicators"], notes };
}
