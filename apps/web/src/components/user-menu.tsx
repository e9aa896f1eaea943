import Link from "next/link";
import { env } from "../env.js";
import type { Principal } from "../server/auth/access.js";

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
      {who.via === "auth-proxy" ? (
        // The proxy signed them in and names them on every request: only it can sign them out.
        env().UNTORN_PROXY_SIGN_OUT_URL && <a href={env().UNTORN_PROXY_SIGN_OUT_URL}>Sign out</a>
      ) : (
        <form method="post" action="/api/auth/logout">
          <button type="submit">Sign out</button>
        </form>
      )}
    </div>
  );
}
