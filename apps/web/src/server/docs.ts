/**
 * The repository's docs/ pages (rule pages, exporter guide, the domain reference...) rendered in the
 * console, so a finding's documentation link and every citation work offline. Only *.md files under docs/
 * with plain path segments are served.
 */
import path from "node:path";
import { Marked, type Token, type Tokens } from "marked";
import { linkCitationsInHtml } from "../lib/citations.js";

export { docFile, findDocsDir } from "./doc-files.js";

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
