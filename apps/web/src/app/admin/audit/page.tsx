import type { Metadata } from "next";
import Link from "next/link";
import { Forbidden } from "../../../components/forbidden.js";
import { env } from "../../../env.js";
import { requirePage } from "../../../server/access.js";
import { getStore } from "../../../server/store.js";

export const metadata: Metadata = { title: "Audit log" };
export const dynamic = "force-dynamic";

type SearchParams = Promise<Record<string, string | string[] | undefined>>;
const one = (v: string | string[] | undefined, max: number) =>
  typeof v === "string" && v.trim() ? v.trim().slice(0, max) : undefined;
const PAGE = 100;

/** Admin: every recorded change, newest first, filtered by actor, action and entity (GET /api/v1/audit too). */
export default async function AuditPage({ searchParams }: { searchParams: SearchParams }) {
  const who = await requirePage("/admin/audit", "/admin/audit");
  if (who === "forbidden") return <Forbidden needed="admin" />;
  const sp = await searchParams;
  const filter = {
    actor: one(sp.actor, 200),
    action: one(sp.action, 100),
    entity: one(sp.entity, 100),
  };
  const beforeRaw = one(sp.before, 16);
  const before = beforeRaw && /^\d{1,15}$/.test(beforeRaw) ? Number(beforeRaw) : undefined;
  const entries = await (await getStore(env())).listAudit({
    ...Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined)),
    ...(before ? { before } : {}),
    limit: PAGE,
  });
  const older = entries.length === PAGE ? entries.at(-1)?.id : undefined;
  const keep = new URLSearchParams(
    Object.entries(filter).filter((e): e is [string, string] => e[1] !== undefined),
  );
  return (
    <>
      <h1>Audit log</h1>
      <p className="subtle">Append-only: the store refuses to change or delete an entry.</p>
      <form
        method="get"
        className="form-grid"
        style={{ alignItems: "end" }}
        aria-label="Filter the audit log"
      >
        <div className="field">
          <label htmlFor="audit-actor">Actor contains</label>
          <input id="audit-actor" name="actor" defaultValue={filter.actor} />
        </div>
        <div className="field">
          <label htmlFor="audit-action">Action starts with</label>
          <input
            id="audit-action"
            name="action"
            defaultValue={filter.action}
            placeholder="instance-metadata."
          />
        </div>
        <div className="field">
          <label htmlFor="audit-entity">Entity</label>
          <input
            id="audit-entity"
            name="entity"
            defaultValue={filter.entity}
            placeholder="instance_metadata"
          />
        </div>
        <div>
          <button type="submit">Filter</button>
        </div>
      </form>
      <section className="section">
        <table data-testid="audit-table">
          <thead>
            <tr>
              <th>When (UTC)</th>
              <th>Actor</th>
              <th>Action</th>
              <th>Entity</th>
              <th>What changed</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((a) => (
              <tr key={a.id}>
                <td>{a.at.toISOString().slice(0, 19).replace("T", " ")}</td>
                <td>{a.actor}</td>
                <td>{a.action}</td>
                <td>
                  {a.entity} {a.entityId}
                </td>
                <td>
                  <code style={{ whiteSpace: "pre-wrap" }}>{JSON.stringify(a.details)}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {entries.length === 0 && <p className="subtle">No entries match.</p>}
        {older && (
          <p>
            <Link href={`/admin/audit?${new URLSearchParams([...keep, ["before", String(older)]])}`}>
              Older entries
            </Link>
          </p>
        )}
      </section>
    </>
  );
}
