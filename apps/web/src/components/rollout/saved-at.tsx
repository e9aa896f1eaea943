import { utc } from "../../lib/format.js";
import { savedApart } from "../../lib/rollout-view.js";

/**
 * When the store saved a rollout, beside its time on the rollout's clock, where the two differ: on a
 * recording every rollout is created at the recording's end, and only the save tells apart two made
 * minutes apart.
 */
export function SavedAt({ createdAt, storedAt }: { createdAt: number; storedAt: Date }) {
  const saved = savedApart(createdAt, storedAt);
  if (!saved) return null;
  return (
    <span className="subtle" data-testid="saved-at" title="When this console saved the rollout (wall clock)">
      {" "}
      (saved {utc(saved)})
    </span>
  );
}
