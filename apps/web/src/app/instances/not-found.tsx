import { headers } from "next/headers";
import Link from "next/link";
import { parseInstanceId } from "../../lib/instance-id.js";

/** HTTP 404 for /instances/{id} (instances/[id]/layout.tsx): no such instance, or a malformed id. */
export default async function InstanceNotFound() {
  const path = ((await headers()).get("x-untorn-path") ?? "").split("?")[0] ?? "";
  const id = parseInstanceId(path.replace(/^\/instances\//, ""));
  return (
    <div className="empty" role="alert">
      <h1>{id.ok ? `No instance “${id.id}” in the fleet` : "Bad instance in the URL"}</h1>
      <p>
        {id.ok ? (
          <>
            The fleet has no series with <code>instance="{id.id}"</code>. Check the spelling, or search for it
            on the fleet page.
          </>
        ) : (
          `The instance ${id.message}.`
        )}
      </p>
      <p>
        <Link href="/">Back to the fleet</Link>
      </p>
    </div>
  );
}
