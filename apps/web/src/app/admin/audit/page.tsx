import type { Metadata } from "next";
import Link from "next/link";
import { env } from "../../../env.js";
import { changeLines, dayBound, entityHref } from "../../../lib/audit-view.js";
import { requirePage } from "../../../server/auth/access.js";
import { getStore } from "../../../server/store.js";

export const metadata: Metadata = { title: "Audit log" };
export const dynamic = "force-dynamic";

type SearchParams = Promise<Record<string, string | string[] | undefined>>;
/** One query value, control characters dropped (the store refuses them). */
const one = (v: string | string[] | undefined, max: number) => {
  const t = typeof v === "string" ? v.replace(/\p{Cc}/gu, "").trim() : "";
  return t ? t.slice(0, max) : undefined;
};
const PAGE = 100;

/** Admin: every recorded change, newest first, filtered by actor, action and entity (GET /api/v1/audit too). */
export default async function AuditPage({ searchParams }: { searchParams: SearchParams }) {
  await requirePage("/admin/audit", "/admin/audit");
  const sp = await searchParams;
  const filter = {
    actor: one(sp.actor, 200),
    action: one(sp.action, 100),
    entity: one(sp.entity, 100),
  };
  const beforeRaw = one(sp.before, 16);
  const before = beforeRaw && /^\d{1,15}$/.test(beforeRaw) ? Number(beforeRaw) : undefined;
  const fromDay = one(sp.from, 10);
  const toDay = one(sp.to, 10);
  const from = dayBound(fromDay);
  const to = dayBound(toDay, true);
  const store = await getStore(env());
  const [entries, chain] = await Promise.all([
    store.listAudit({
      ...Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined)),
      ...(before ? { before } : {}),
      ...(from ? { from } : {}),
      ...(to ? { to } : {}),
      limit: PAGE,
    }),
    store.verifyAudit(),
  ]);
  const older = entries.length === PAGE ? entries.at(-1)?.id : undefined;
  const keep = new URLSearchParams(
    Object.entries({ ...filter, from: from ? fromDay : undefined, to: to ? toDay : undefined }).filter(
      (e): e is [string, string] => e[1] !== undefined,
    ),
  );
  return (
    <>
      <h1>Audit log</h1>
      <p className="subtle">
        Append-only, and chained: each entry carries the hash of the one before it, so an entry changed or
        removed afterwards breaks the chain from there on (<code>untorn audit verify</code> checks it too).{" "}
        {chain.ok ? (
          <span className="badge badge-ok" data-testid="audit-chain">
            verified: {chain.entries} entries
          </span>
        ) : (
          <span className="badge badge-bad" data-testid="audit-chain" title={chain.reason}>
            broken at entry {chain.brokenAt}
          </span>
        )}
      </p>
      {!chain.ok && (
        <div className="banner banner-bad" role="alert">
          {chain.reason}
        </div>
      )}
      <form
        method="get"
        className="form-grid"
        style={{ alignItems: "end" }}
        aria-label="Filter the audit log"
      >
        <div className="field">
          <label htmlFor="audit-actor">Actor contains</label>
          <input type="text" id="audit-actor" name="actor" defaultValue={filter.actor} />
        </div>
        <div className="field">
          <label htmlFor="audit-action">Action starts with</label>
          <input
            type="text"
            id="audit-action"
            name="action"
            defaultValue={filter.action}
            placeholder="instance-metadata."
          />
        </div>
        <div className="field">
          <label htmlFor="audit-entity">Entity</label>
          <input
            type="text"
            id="audit-entity"
            name="entity"
            defaultValue={filter.entity}
            placeholder="instance_metadata"
          />
        </div>
        <div className="field">
          <label htmlFor="audit-from">From (UTC date)</label>
          <input id="audit-from" name="from" type="date" defaultValue={from ? fromDay : undefined} />
        </div>
        <div className="field">
          <label htmlFor="audit-to">To (UTC date)</label>
          <input id="audit-to" name="to" type="date" defaultValue={to ? toDay : undefined} />
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
                  <EntityCell entity={a.entity} entityId={a.entityId} />
                </td>
                <td>
                  <Changes details={a.details} />
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

function EntityCell({ entity, entityId }: { entity: string; entityId: string | null }) {
  const href = entityHref(entity, entityId);
  return (
    <>
      <span className="subtle">{entity}</span> {href ? <Link href={href}>{entityId}</Link> : entityId}
    </>
  );
}

function Changes({ details }: { details: unknown }) {
  const lines = changeLines(details);
  if (lines.length === 0) return <span className="subtle">no details</span>;
  return (
    <ul style={{ margin: 0, paddingLeft: "1rem" }}>
      {lines.map((l) => (
        <li key={l.field}>
          <strong>{l.field}</strong>:{" "}
          {l.from !== undefined ? (
            <>
              <del>{l.from}</del> → <ins>{l.to}</ins>
            </>
          ) : (
            <span>{l.to}</span>
          )}
        </li>
      ))}
    </ul>
  );
}
