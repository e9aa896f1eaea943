import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { parseInstanceId } from "../../../lib/instance-id.js";
import { mayOpen } from "../../../server/auth/access.js";
import { instanceLookup } from "../../../server/fleet/views.js";

/**
 * Answers an instance the fleet does not have (or a malformed id) with HTTP 404: this layout runs before
 * the segment's loading boundary (loading.tsx), whose streamed skeleton would otherwise commit a 200
 * before the page finds nothing. It waits for the fleet read (the page does too; the lookup is shared,
 * server/fleet/views.ts). Only for a signed-in viewer, so nobody else learns which instances exist; a fleet
 * that cannot be read is the page's banner, as before.
 */
export default async function InstanceLayout({
  children,
  params,
}: {
  children: ReactNode;
  params: Promise<{ id: string }>;
}) {
  const { id: raw } = await params;
  if (!(await mayOpen("/instances/[id]"))) return children;
  const id = parseInstanceId(raw);
  if (!id.ok || (await instanceLookup(id.id)).kind === "not-found") notFound();
  return children;
}
