import type { Metadata } from "next";
import { ActionForm } from "../../../components/action-form.js";
import { env } from "../../../env.js";
import { ROLES } from "../../../lib/permissions.js";
import { createUser, updateUser } from "../../../server/actions.js";
import { requirePage } from "../../../server/auth/access.js";
import { getStore } from "../../../server/store.js";

export const metadata: Metadata = { title: "Users" };
export const dynamic = "force-dynamic";

/** Admin: local accounts, their roles, and new accounts. */
export default async function UsersPage() {
  await requirePage("/admin/users", "/admin/users");
  const users = await (await getStore(env())).listUsers();
  return (
    <>
      <h1>Users</h1>
      <section className="section">
        <table>
          <thead>
            <tr>
              <th>User</th>
              <th>Role</th>
              <th>State</th>
              <th>Change</th>
            </tr>
          </thead>
          <tbody>
            {users.map((u) => (
              <tr key={u.id}>
                <td>{u.username}</td>
                <td>{u.role}</td>
                <td>{u.disabledAt ? "disabled" : "active"}</td>
                <td>
                  <ActionForm
                    action={updateUser}
                    testId={`user-${u.username}`}
                    submit="Apply"
                    fields={[
                      { name: "id", label: "", type: "hidden", value: u.id },
                      { name: "role", label: "Role", options: ROLES, value: u.role },
                      {
                        name: "disabled",
                        label: "Disabled",
                        options: ["false", "true"],
                        optionLabels: { false: "no", true: "yes" },
                        value: String(Boolean(u.disabledAt)),
                      },
                      { name: "password", label: "New password", type: "password" },
                    ]}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section className="section" aria-labelledby="new-user-title">
        <h2 id="new-user-title">New user</h2>
        <ActionForm
          action={createUser}
          testId="new-user"
          submit="Create user"
          fields={[
            { name: "username", label: "Username" },
            { name: "password", label: "Password (12+ characters)", type: "password" },
            { name: "role", label: "Role", options: ROLES, value: "viewer" },
          ]}
        />
      </section>
    </>
  );
}
