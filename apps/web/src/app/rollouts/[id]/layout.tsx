import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { mayOpen } from "../../../server/auth/access.js";
import { getRolloutView, RolloutStoreError, rolloutIdSchema } from "../../../server/rollouts/rollouts.js";

/**
 * Answers an unknown rollout with HTTP 404: this layout runs before the segment's loading boundary
 * (loading.tsx), whose streamed skeleton would otherwise commit a 200 before the page finds nothing.
 * Only for a signed-in reader of rollouts, so nobody else learns which ids exist; the pages themselves
 * redirect to the sign-in or answer "forbidden" as before.
 */
export default async function RolloutLayout({
  children,
  params,
}: {
  children: ReactNode;
  params: Promise<{ id: string }>;
}) {
  const { id: raw } = await params;
  if (!(await mayOpen("/rollouts/[id]"))) return children;
  const id = rolloutIdSchema.safeParse(raw);
  if (!id.success) notFound();
  const found = await getRolloutView(id.data).catch((err: unknown) => {
    // The page shows the store's problem in words.
    if (err instanceof RolloutStoreError) return null;
    throw err;
  });
  if (found?.kind === "not-found") notFound();
  return children;
}
