import type { Indicator, Profile } from "@untorn/advisor/profile";
import { withUnit } from "../lib/format.js";
import { Cited } from "./cited.js";

function Row({ i }: { i: Indicator }) {
  return (
    <tr>
      <th scope="row">{i.label}</th>
      <td className="num">{withUnit(i.value, i.unit)}</td>
      <td className="num">{i.peak === null ? "–" : withUnit(i.peak, i.unit)}</td>
      <td>
        <code>{i.basis}</code>
        {i.note && (
          <div className="subtle">
            <Cited text={i.note} />
          </div>
        )}
        {i.missing.length > 0 && <div className="subtle">Missing: {i.missing.join(", ")}</div>}
      </td>
    </tr>
  );
}

function IndicatorTable({ items, label }: { items: readonly Indicator[]; label: string }) {
  return (
    <div className="table-scroll">
      <table className="data" aria-label={label}>
        <thead>
          <tr>
            <th scope="col">Indicator</th>
            <th scope="col" className="num">
              Value
            </th>
            <th scope="col" className="num">
              Peak (p95)
            </th>
            <th scope="col">Formula</th>
          </tr>
        </thead>
        <tbody>
          {items.map((i) => (
            <Row key={i.id} i={i} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** What doublewrite costs here: every indicator with its formula; unknown ones say what they lacked. */
export function ProfileSection({ profile }: { profile: Profile }) {
  const all = Object.values(profile.indicators);
  const known = all.filter((i) => i.value !== null);
  const unknown = all.filter((i) => i.value === null);
  return (
    <section className="section" aria-labelledby="profile-title">
      <h2 id="profile-title">Doublewrite profile</h2>
      <IndicatorTable items={known} label="Known indicators" />
      {unknown.length > 0 && (
        <details>
          <summary>{unknown.length} indicators without data</summary>
          <IndicatorTable items={unknown} label="Indicators without data" />
        </details>
      )}
      {profile.notes.length > 0 && (
        <ul>
          {profile.notes.map((n) => (
            <li key={n}>
              <Cited text={n} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
