import fs from "node:fs/promises";
import path from "node:path";
import { route } from "../../../server/auth/access.js";
import { findDocsDir, REPO_FILE } from "../../../server/docs/docs.js";
import { methodNotAllowed } from "../../../server/http.js";

export const dynamic = "force-dynamic";

const TYPES: Readonly<Record<string, string>> = {
  ".json": "application/json; charset=utf-8",
  ".png": "image/png",
  ".md": "text/markdown; charset=utf-8",
};

/**
 * GET /repo-files/<path>: the repository files the docs pages link to (JSON schemas, screenshots,
 * benchmark results, the READMEs), exactly those REPO_FILE names; anything else is 404.
 */
export const GET = route(
  "GET /repo-files/[...path]",
  async (_req, _who, ctx: { params: Promise<{ path: string[] }> }) => {
    const rel = ((await ctx.params).path ?? []).join("/");
    const docs = findDocsDir(process.cwd());
    if (!docs || !REPO_FILE.test(rel) || rel.split("/").includes(".."))
      return Response.json({ error: `no such file: ${rel}` }, { status: 404 });
    try {
      const body = await fs.readFile(path.join(path.dirname(docs), rel));
      return new Response(new Uint8Array(body), {
        status: 200,
        headers: {
          "content-type": TYPES[path.extname(rel)] ?? "application/octet-stream",
          "cache-control": "no-cache",
          "x-content-type-options": "nosniff",
        },
      });
    } catch {
      return Response.json({ error: `no such file: ${rel}` }, { status: 404 });
    }
  },
);

const notAllowed = methodNotAllowed("GET");
export const POST = notAllowed;
export const PUT = notAllowed;
export const PATCH = notAllowed;
export const DELETE = notAllowed;
