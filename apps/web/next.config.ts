import type { NextConfig } from "next";

/** On every response (the CSP, with its per-request nonce, comes from src/proxy.ts). */
const SECURITY_HEADERS = [
  { key: "X-Frame-Options", value: "DENY" },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "same-origin" },
  { key: "Cross-Origin-Opener-Policy", value: "same-origin" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=()" },
];

const config: NextConfig = {
  // Relative imports end in .js (the monorepo's NodeNext convention); the sources are .ts/.tsx.
  // authInterrupts: forbidden() answers a page a role may not open with HTTP 403 (app/forbidden.tsx).
  experimental: { extensionAlias: { ".js": [".ts", ".tsx", ".js"] }, authInterrupts: true },
  poweredByHeader: false,
  // `npm run typecheck` (tsconfig.check.json) checks these sources; the build does not check them again.
  typescript: { ignoreBuildErrors: true },
  headers: async () => [{ source: "/:path*", headers: SECURITY_HEADERS }],
};

export default config;
