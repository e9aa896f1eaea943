import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { env } from "../../env.js";
import { AccessError, currentPrincipal } from "../../server/auth/access.js";
import { safeNext } from "../../server/auth/auth.js";
import { endSessionUrl } from "../../server/auth/oidc.js";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

type SearchParams = Promise<Record<string, string | string[] | undefined>>;
const one = (v: string | string[] | undefined) => (typeof v === "string" ? v : undefined);

/**
 * The sign-in page: the password form (UNTORN_AUTH=local, posting to /api/auth/login), the identity
 * provider's button (oidc), or why the auth proxy's sign-in was not accepted (proxy).
 */
export default async function LoginPage({ searchParams }: { searchParams: SearchParams }) {
  const sp = await searchParams;
  const next = safeNext(one(sp.next));
  let refused: string | null = null;
  const who = await currentPrincipal().catch((err: unknown) => {
    if (err instanceof AccessError) refused = err.message;
    return null;
  });
  if (who) redirect(next);
  const e = env();
  const error = one(sp.error);
  if (e.UNTORN_AUTH === "proxy")
    return (
      <section className="section" aria-labelledby="login-title" style={{ maxWidth: 560 }}>
        <h1 id="login-title">Sign in</h1>
        <p role="status">Sign-in is handled by the auth proxy in front of this console.</p>
        {refused && (
          <p role="alert" className="field-error" data-testid="login-error">
            {refused}
          </p>
        )}
      </section>
    );
  if (e.UNTORN_AUTH === "oidc") {
    const providerSignOut = one(sp.signedOut) ? await endSessionUrl(e) : null;
    return (
      <section className="section" aria-labelledby="login-title" style={{ maxWidth: 560 }}>
        <h1 id="login-title">Sign in</h1>
        {one(sp.signedOut) && (
          <p role="status" className="subtle">
            You are signed out of Untorn.{" "}
            {providerSignOut && <a href={providerSignOut}>Sign out of your identity provider too</a>}
          </p>
        )}
        {error && (
          <p role="alert" className="field-error" data-testid="login-error">
            {error.slice(0, 500)}
          </p>
        )}
        <p>
          <a className="button primary" href={`/api/auth/oidc/login?next=${encodeURIComponent(next)}`}>
            Sign in with your identity provider
          </a>
        </p>
      </section>
    );
  }
  return (
    <section className="section" aria-labelledby="login-title" style={{ maxWidth: 420 }}>
      <h1 id="login-title">Sign in</h1>
      {one(sp.signedOut) && (
        <p role="status" className="subtle">
          You are signed out.
        </p>
      )}
      {error && (
        <p role="alert" className="field-error" data-testid="login-error">
          {error.slice(0, 200)}
        </p>
      )}
      <form method="post" action="/api/auth/login">
        <input type="hidden" name="next" value={next} />
        <div className="field">
          <label htmlFor="login-username">Username</label>
          <input id="login-username" name="username" type="text" autoComplete="username" required />
        </div>
        <div className="field">
          <label htmlFor="login-password">Password</label>
          <input
            id="login-password"
            name="password"
            type="password"
            autoComplete="current-password"
            required
          />
        </div>
        <button type="submit" className="primary" style={{ marginTop: "0.75rem" }}>
          Sign in
        </button>
      </form>
      <p className="subtle">
        First run: the account <code>{e.UNTORN_ADMIN_USER}</code> uses UNTORN_ADMIN_PASSWORD, or the password
        the server printed once on its console.
      </p>
    </section>
  );
}
