import type { Metadata } from "next";
import { ActionForm } from "../../components/action-form.js";
import { env } from "../../env.js";
import { createApiToken, revokeApiToken } from "../../server/actions.js";
import { requirePage } from "../../server/auth/access.js";
import { getStore } from "../../server/store.js";

export const metadata: Metadata = { title: "Account" };
export const dynamic = "force-dynamic";

const utc = (d: Date | null) => (d ? `${d.toISOString().slice(0, 16).replace("T", " ")} UTC` : "never");

/** The signed-in user's role and API tokens (read API, viewer rights). */
export default async function AccountPage() {
  const who = await requirePage("/account", "/account");
  const tokens = who.userId ? await (await getStore(env())).listApiTokens(who.userId) : [];
  return (
    <>
      <h1>{who.name}</h1>
      <p className="subtle">
        Role: <strong>{who.role}</strong>.
      </p>
      <section className="section" aria-labelledby="tokens-title">
        <h2 id="tokens-title">API tokens</h2>
        <p className="subtle">
          For automation on the read API: <code>Authorization: Bearer &lt;token&gt;</code> on /api/v1/…, with
          viewer rights whatever your role. Stored as a hash: shown once.
        </p>
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th>Created</th>
              <th>Last used</th>
              <th>State</th>
            </tr>
          </thead>
          <tbody>
            {tokens.map((t) => (
              <tr key={t.id}>
                <td>{t.name}</td>
                <td>{utc(t.createdAt)}</td>
                <td>{utc(t.lastUsedAt)}</td>
                <td>
                  {t.revokedAt ? (
                    `revoked ${utc(t.revokedAt)}`
                  ) : (
                    <ActionForm
                      action={revokeApiToken}
                      fields={[{ name: "id", label: "", type: "hidden", value: t.id }]}
                      submit="Revoke"
                      testId={`revoke-${t.id}`}
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {who.userId && (
          <ActionForm
            action={createApiToken}
            fields={[{ name: "name", label: "Token name" }]}
            submit="Create token"
            testId="new-token"
          />
        )}
      </section>
    </>
  );
}
