/**
 * The repository's docs/ pages (rule pages, exporter guide...) rendered in the console, so a finding's
 * documentation link works offline. Only *.md files under docs/ with plain path segments are served.
 */
import fs from "node:fs";
import path from "node:path";
import { marked, type Token } from "marked";

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
  return fs.existsSync(file) ? file : null;
}

/** Relative links between docs pages become console routes; other links are left as written. */
export function rewriteHref(href: string, docPath: readonly string[]): string {
  if (/^[a-z]+:/i.test(href) || href.startsWith("#") || href.startsWith("/")) return href;
  const [target = "", anchor] = href.split("#", 2);
  if (!target.endsWith(".md")) return href;
  const resolved = path.posix.normalize(path.posix.join(...docPath.slice(0, -1), target));
  if (resolved.startsWith("..")) return href;
  return `/docs/${resolved.replace(/\.md$/, "")}${anchor ? `#${anchor}` : ""}`;
}

export function renderDoc(markdown: string, slug: readonly string[]): { html: string; title: string } {
  const tokens = marked.lexer(markdown);
  marked.walkTokens(tokens, (t: Token) => {
    if (t.type === "link") t.href = rewriteHref(t.href, slug);
  });
  const heading = tokens.find((t) => t.type === "heading" && t.depth === 1);
  return {
    html: marked.parser(tokens),
    title: heading && heading.type === "heading" ? heading.text : slug.join("/"),
  };
}
