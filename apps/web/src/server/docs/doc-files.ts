/**
 * Which docs/ pages exist: a slug to its Markdown file. Apart from the renderer (docs.ts) so the proxy
 * can answer a missing page 404 without loading marked.
 */
import fs from "node:fs";
import path from "node:path";

const SEGMENT = /^[a-z0-9][a-z0-9._-]*$/i;

/** The first `docs` directory holding `rules/` at or above `from`, or null. */
export function findDocsDir(from: string): string | null {
  let dir = path.resolve(from);
  for (;;) {
    const candidate = path.join(dir, "docs");
    if (fs.existsSync(path.join(candidate, "rules"))) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** `rules/doublewrite-share-high` → the file, or null when the slug is not a plain docs page. */
export function docFile(docsDir: string, slug: readonly string[]): string | null {
  if (slug.length === 0 || slug.length > 4 || !slug.every((s) => SEGMENT.test(s) && s !== "." && s !== ".."))
    return null;
  const file = path.join(docsDir, ...slug.slice(0, -1), `${slug.at(-1)!.replace(/\.md$/, "")}.md`);
  if (!file.startsWith(docsDir + path.sep)) return null;
  if (fs.existsSync(file)) return file;
  // A directory with a README (docs/reference) is served as its index.
  const index = path.join(docsDir, ...slug, "README.md");
  return index.startsWith(docsDir + path.sep) && fs.existsSync(index) ? index : null;
}

/**
 * True when `pathname` is under /docs/ and names no page. The page's own notFound() comes too late for
 * the status: the root loading.tsx has streamed a 200 by then.
 */
export function isMissingDoc(pathname: string, cwd: string = process.cwd()): boolean {
  if (!pathname.startsWith("/docs/")) return false;
  const dir = findDocsDir(cwd);
  let slug: string[];
  try {
    slug = pathname.slice("/docs/".length).split("/").filter(Boolean).map(decodeURIComponent);
  } catch {
    return true;
  }
  return !dir || docFile(dir, slug) === null;
}
