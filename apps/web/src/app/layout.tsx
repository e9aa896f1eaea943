import type { Metadata } from "next";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { Suspense } from "react";
import { NavLinks } from "../components/nav-links.js";
import { SourceBadge } from "../components/source-badge.js";
import { ThemeToggle, themeScript } from "../components/theme-toggle.js";
import { UserMenu } from "../components/user-menu.js";
import { currentPrincipal } from "../server/auth/access.js";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Untorn", template: "%s · Untorn" },
  description:
    "Doublewrite buffer cost, write-bound verdicts and safe advice for MySQL, MariaDB and Percona fleets.",
};

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // The per-request CSP nonce set by src/proxy.ts: inline scripts without it do not run.
  const h = await headers();
  const nonce = h.get("x-nonce") ?? undefined;
  const who = await currentPrincipal().catch(() => null);
  // Here, outside the pages' loading boundaries, a redirect is a real 307; each page checks its role too.
  const path = h.get("x-untorn-path") ?? "/";
  if (!who && !path.startsWith("/login")) redirect(`/login?next=${encodeURIComponent(path)}`);
  return (
    <html lang="en" suppressHydrationWarning>
      <head>
        {/* Applies the saved theme before the first paint, so a dark choice never flashes light. */}
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: a constant script, no user input */}
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: themeScript }} />
      </head>
      <body>
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <header className="app-header">
          <a className="brand" href="/">
            Untorn
          </a>
          <nav className="app-nav" aria-label="Main">
            <NavLinks />
          </nav>
          <div className="header-right">
            <Suspense fallback={null}>
              <SourceBadge />
            </Suspense>
            <ThemeToggle />
            <UserMenu who={who} />
          </div>
        </header>
        <main id="main" tabIndex={-1}>
          {children}
        </main>
      </body>
    </html>
  );
}
