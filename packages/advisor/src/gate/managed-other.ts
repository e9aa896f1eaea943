/** Another managed service: it controls storage and innodb_doublewrite, with no documented guarantee here. */
import { defineGateCheck } from "./check.js";

export const managedOther = defineGateCheck({
  meta: {
    id: "managed-other",
    path: "provider-managed",
    title: "Managed service",
    appliesWhen: "`platform.managed` is `other`",
    passesWhen: "never: no documented torn-write guarantee is known (status unknown)",
    needs: ["platform.managed"],
    source: "docs/reference/atomic-storage.md §8.1, §8.2, §8.3",
  },
  applies: ({ facts }) => facts.platform?.managed === "other",
  evaluate: () => ({
    status: "unknown",
    detail:
      "A managed service controls storage and innodb_doublewrite; no documented torn-write guarantee is known here.",
    fix: "Use the provider's own feature if it has one; do not change innodb_doublewrite by hand.",
  }),
});
