/** Aurora: its own storage layer, outside RDS Optimized Writes and doublewrite advice (docs/reference/atomic-storage.md §8.1). */
import { defineGateCheck } from "./check.js";

export const aurora = defineGateCheck({
  meta: {
    id: "aurora",
    path: "provider-managed",
    title: "Aurora storage",
    appliesWhen: "`platform.managed` is `aurora`",
    passesWhen: "never: not applicable, Aurora's storage layer is its own",
    needs: ["platform.managed"],
    source: "docs/reference/atomic-storage.md §8.1",
  },
  applies: ({ facts }) => facts.platform?.managed === "aurora",
  evaluate: () => ({
    status: "not-applicable",
    detail: "Aurora uses its own storage layer; RDS Optimized Writes and doublewrite advice do not apply.",
  }),
});
