/**
 * The registration list of every rule, sorted by id (like mysqld_exporter's scraper list). Adding a
 * rule: one module under src/rules/, one docs/rules/<id>.md page, one line here.
 */
import { type RegisteredRule, register } from "./rule.js";
import { atomicStorageDoublewriteOn } from "./rules/atomic-storage-doublewrite-on.js";
import { bufferedIoVoidsAtomicity } from "./rules/buffered-io-voids-atomicity.js";
import { detectOnlyStep } from "./rules/detect-only-step.js";
import { doublewriteOffUnverifiedStorage } from "./rules/doublewrite-off-unverified-storage.js";
import { doublewritePagesTooSmall } from "./rules/doublewrite-pages-too-small.js";
import { doublewriteShareHigh } from "./rules/doublewrite-share-high.js";
import { keepDoublewriteOn } from "./rules/keep-doublewrite-on.js";
import { managedServiceDoublewrite } from "./rules/managed-service-doublewrite.js";
import { mariadbAtomicWritesIneffective } from "./rules/mariadb-atomic-writes-ineffective.js";
import { mariadbFastNotAtomic } from "./rules/mariadb-fast-not-atomic.js";
import { observabilityGaps } from "./rules/observability-gaps.js";
import { pageSizeExceedsAtomicUnit } from "./rules/page-size-exceeds-atomic-unit.js";

export const rules: readonly RegisteredRule[] = [
  register(atomicStorageDoublewriteOn),
  register(bufferedIoVoidsAtomicity),
  register(detectOnlyStep),
  register(doublewriteOffUnverifiedStorage),
  register(doublewritePagesTooSmall),
  register(doublewriteShareHigh),
  register(keepDoublewriteOn),
  register(managedServiceDoublewrite),
  register(mariadbAtomicWritesIneffective),
  register(mariadbFastNotAtomic),
  register(observabilityGaps),
  register(pageSizeExceedsAtomicUnit),
];

export const ruleIds: readonly string[] = rules.map((r) => r.meta.id);
