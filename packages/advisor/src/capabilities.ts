/**
 * The capability table (which version has which setting, the counter bugs) lives in
 * @untorn/vocabulary/capabilities; this module reads it for the server the facts describe.
 */
import { type Capabilities, capabilitiesOf } from "@untorn/vocabulary/capabilities";
import { parseServerVersion } from "@untorn/vocabulary/server-version";
import type { InstanceFacts } from "./facts.js";

/** Capabilities of the server described by the facts (the schema guarantees a parsable version). */
export function capabilitiesFor(facts: InstanceFacts): Capabilities {
  const version = parseServerVersion(facts.server.version, facts.server.versionComment)?.version ?? {
    major: 0,
    minor: 0,
    patch: 0,
  };
  const caps = capabilitiesOf(facts.server.flavor, version);
  // A server that prints `fast` has the dynamic ENUM, whatever its version says.
  const printedFast =
    facts.config.doublewrite === "fast" || facts.config.doublewriteRaw?.trim().toLowerCase() === "fast";
  if (caps.flavor === "mariadb" && caps.runtimeOffUnknown && printedFast)
    return { ...caps, runtimeOff: true, runtimeOffUnknown: false, fastMode: true };
  return caps;
}
