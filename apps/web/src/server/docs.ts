/**
 * The repository's docs/ pages (rule pages, exporter guide, the domain reference...) rendered in the
 * console, so a finding's documentation link and every citation work offline. Only *.md files under docs/
 * with plain path segments are served.
 */
import fs from "node:fs";
import path from "node:path";
import { Marked, type Token, type Tokens } from "marked";
import { linkCitationsInHtml } from "../lib/citations.js";

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

/** The page's path under docs/ without `.md` (`reference/README` for the directory route `reference`). */
export function docPathOf(docsDir: string, file: string): string[] {
  return path.relative(docsDir, file).replace(/\.md$/, "").split(path.sep);
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

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens (`2.2 innodb_doublewrite` → `22-innodb_doublewrite`). */
export function headingSlug(text: string): string {
  return text
    .replace(/<[^>]*>/g, "")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .toLowerCase()
    .trim()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** A renderer per page: headings get GitHub's anchors, and numbered ones also `s<number>` (`#s2.2`). */
function renderer(): Marked {
  const seen = new Map<string, number>();
  return new Marked({
    renderer: {
      heading(
        this: { parser: { parseInline(tokens: Token[]): string } },
        { tokens, depth, text }: Tokens.Heading,
      ) {
        const base = headingSlug(text);
        const n = seen.get(base) ?? 0;
        seen.set(base, n + 1);
        const id = n === 0 ? base : `${base}-${n}`;
        const section = /^(\d+(?:\.\d+)*)\.?\s/.exec(text)?.[1];
        const anchor = section ? `<a id="s${section}" aria-hidden="true"></a>` : "";
        return `<h${depth} id="${id}">${anchor}${this.parser.parseInline(tokens)}</h${depth}>\n`;
      },
    },
  });
}

export function renderDoc(markdown: string, slug: readonly string[]): { html: string; title: string } {
  const md = renderer();
  const tokens = md.lexer(markdown);
  md.walkTokens(tokens, (t: Token) => {
    if (t.type === "link") t.href = rewriteHref(t.href, slug);
  });
  const heading = tokens.find((t) => t.type === "heading" && t.depth === 1);
  return {
    html: linkCitationsInHtml(md.parser(tokens)),
    title: heading && heading.type === "heading" ? heading.text : slug.join("/"),
  };
}
