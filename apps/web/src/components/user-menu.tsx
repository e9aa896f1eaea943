import Link from "next/link";
import type { Principal } from "../server/access.js";

/** The header's account corner: who is signed in, with their role, and the sign-out button. */
export function UserMenu({ who }: { who: Principal | null }) {
  if (!who) return null;
  return (
    <div className="user-menu" data-testid="user-menu">
      <Link href="/account">
        {who.name} <span className="subtle">({who.role})</span>
      </Link>
      {who.role === "admin" && (
        <>
          <Link href="/admin/users">Users</Link>
          <Link href="/admin/audit">Audit</Link>
        </>
      )}
      <form method="post" action="/api/auth/logout">
        <button type="submit">Sign out</button>
      </form>
    </div>
  );
}
