import type { NextConfig } from "next";

const config: NextConfig = {
  // Relative imports end in .js (the monorepo's NodeNext convention); the sources are .ts/.tsx.
  experimental: { extensionAlias: { ".js": [".ts", ".tsx", ".js"] } },
};

export default config;
