/**
 * A real OpenID Connect provider for tests: panva's oidc-provider (a certified OP implementation) on
 * 127.0.0.1, with the clients and users given in UNTORN_TEST_OIDC (JSON), and a plain login form of
 * its own instead of oidc-provider's development pages. Started and stopped by src/oidc.ts.
 *
 *   UNTORN_TEST_OIDC='{"port":…,"clients":[…],"users":[…]}' node oidc/provider.mjs
 *
 * Users: { sub, username, password, groups, email? }. Their claims go out under the scopes `profile`
 * (preferred_username, name), `email` and `groups`; a code flow's ID token carries only sub (the
 * provider's default), so a client reads the rest from userinfo.
 */
import { createServer } from "node:http";
import Provider, { errors } from "oidc-provider";

const cfg = JSON.parse(process.env.UNTORN_TEST_OIDC ?? "{}");
const issuer = `http://127.0.0.1:${cfg.port}`;
const users = new Map(cfg.users.map((u) => [u.sub, u]));

const provider = new Provider(issuer, {
  clients: cfg.clients.map((c) => ({
    client_id: c.clientId,
    client_secret: c.clientSecret,
    redirect_uris: c.redirectUris,
    post_logout_redirect_uris: c.postLogoutRedirectUris ?? [],
    response_types: ["code"],
    grant_types: ["authorization_code"],
    token_endpoint_auth_method: "client_secret_basic",
  })),
  // Fixed test keys would live in the repository; these are made at start and die with the process.
  cookies: { keys: [crypto.randomUUID(), crypto.randomUUID()] },
  pkce: { required: () => true },
  scopes: ["openid", "profile", "email", "groups"],
  claims: {
    openid: ["sub"],
    profile: ["preferred_username", "name"],
    email: ["email"],
    groups: ["groups"],
  },
  features: { devInteractions: { enabled: false }, rpInitiatedLogout: { enabled: true } },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  ttl: {
    Session: 3600,
    Interaction: 600,
    Grant: 3600,
    AccessToken: 600,
    IdToken: 600,
    AuthorizationCode: 60,
  },
  async findAccount(_ctx, sub) {
    const u = users.get(sub);
    if (!u) return undefined;
    return {
      accountId: sub,
      async claims() {
        return {
          sub,
          preferred_username: u.username,
          name: u.username,
          ...(u.email ? { email: u.email } : {}),
          ...(u.groups !== undefined ? { groups: u.groups } : {}),
        };
      },
    };
  },
  renderError(ctx, out) {
    ctx.type = "html";
    ctx.body = `<!doctype html><title>Error</title><h1>Provider error</h1><pre id="error">${html(JSON.stringify(out))}</pre>`;
  },
});

const html = (s) =>
  String(s).replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c],
  );

const loginPage = (uid, error) => `<!doctype html>
<html lang="en"><head><title>Test provider: sign in</title></head><body>
<h1>Test provider</h1>
${error ? `<p role="alert">${html(error)}</p>` : ""}
<form method="post" action="/interaction/${html(uid)}/login">
  <label>Provider username <input name="username" autocomplete="off"></label>
  <label>Provider password <input name="password" type="password"></label>
  <button type="submit">Sign in at the provider</button>
</form></body></html>`;

async function readForm(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

const send = (res, status, html) => {
  res.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
  res.end(html);
};

/** The interaction pages: a login form; consent granted at once (the test client is first-party). */
async function interaction(req, res, uid, action) {
  const details = await provider.interactionDetails(req, res);
  if (details.uid !== uid) return send(res, 400, "interaction mismatch");
  const prompt = details.prompt;
  if (prompt.name === "login") {
    if (req.method === "GET" && !action) return send(res, 200, loginPage(uid));
    if (req.method === "POST" && action === "login") {
      const form = await readForm(req);
      const user = [...users.values()].find((u) => u.username === form.get("username"));
      if (!user || user.password !== form.get("password"))
        return send(res, 200, loginPage(uid, "Wrong username or password."));
      return provider.interactionFinished(
        req,
        res,
        { login: { accountId: user.sub } },
        { mergeWithLastSubmission: false },
      );
    }
  }
  if (prompt.name === "consent") {
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
    const missing = prompt.details;
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(" "));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    const grantId = await grant.save();
    return provider.interactionFinished(
      req,
      res,
      { consent: { grantId } },
      { mergeWithLastSubmission: true },
    );
  }
  return send(res, 400, `unexpected prompt ${html(prompt.name)}`);
}

const callback = provider.callback();
const server = createServer((req, res) => {
  const m = /^\/interaction\/([A-Za-z0-9_-]+)(?:\/(login))?$/.exec(new URL(req.url, issuer).pathname);
  if (!m) return callback(req, res);
  interaction(req, res, m[1], m[2]).catch((err) => {
    const status = err instanceof errors.SessionNotFound ? 400 : 500;
    send(res, status, `<pre id="error">${html(err.message)}</pre>`);
  });
});
server.listen(cfg.port, "127.0.0.1", () => console.log(`test OIDC provider listening on ${issuer}`));
for (const s of ["SIGTERM", "SIGINT"]) process.once(s, () => server.close(() => process.exit(0)));
