/**
 * The repository's docs/ pages (rule pages, exporter guide, the domain reference...) rendered in the
 * console, so a finding's documentation link and every citation work offline. Only *.md files under docs/
 * with plain path segments are served.
 */
import path from "node:path";
import { Marked, type Token, type Tokens } from "marked";
import { linkCitationsInHtml } from "../../lib/citations.js";

export { docFile, findDocsDir } from "./doc-files.js";

/** The page's path under docs/ without `.md` (`reference/README` for the directory route `reference`). */
export function docPathOf(docsDir: string, file: string): string[] {
  return path.relative(docsDir, file).replace(/\.md$/, "").split(path.sep);
}

/**
 * Repository files the console serves beside the docs pages (GET /repo-files/<path>): the JSON schemas,
 * the screenshots, the benchmark results and the top-level READMEs the pages link to.
 */
export const REPO_FILE =
  /^(?:README\.md|BENCHMARKS\.md|lab\/README\.md|docs\/schemas\/[a-z0-9.-]+\.json|docs\/screenshots\/[a-z0-9.-]+\.png|bench\/results\/[A-Za-z0-9._-]+\.(?:json|md))$/;

/** The repository path a relative link of a docs page names, or null when it leaves the repository. */
function repoPathOf(target: string, docPath: readonly string[]): string | null {
  const p = path.posix.normalize(path.posix.join("docs", ...docPath.slice(0, -1), target));
  return p.startsWith("..") ? null : p.replace(/\/$/, "");
}

/**
 * Relative links between docs pages become console routes, links to the files REPO_FILE names their
 * /repo-files/ route; other links are left as written (renderDoc shows a link into the rest of the
 * repository as its path, not as a link the console cannot answer).
 */
export function rewriteHref(href: string, docPath: readonly string[]): string {
  if (/^[a-z]+:/i.test(href) || href.startsWith("#") || href.startsWith("/")) return href;
  const [target = "", anchor] = href.split("#", 2);
  const repoPath = repoPathOf(target, docPath);
  if (repoPath === null) return href;
  if (target.endsWith(".md") && repoPath.startsWith("docs/"))
    return `/docs/${repoPath.slice("docs/".length).replace(/\.md$/, "")}${anchor ? `#${anchor}` : ""}`;
  if (REPO_FILE.test(repoPath)) return `/repo-files/${repoPath}`;
  return href;
}

/** A relative link rewriteHref left as written: it names a repository file the console does not serve. */
const unserved = (href: string) => !/^[a-z]+:/i.test(href) && !href.startsWith("#") && !href.startsWith("/");

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
    if (t.type !== "link" && t.type !== "image") return;
    t.href = rewriteHref(t.href, slug);
    if (t.type === "link" && unserved(t.href)) {
      // Shown as the repository path it names (e.g. compose/prometheus/prometheus.yml), not a dead link.
      const target = repoPathOf(t.href.split("#", 1)[0] ?? "", slug) ?? t.href;
      Object.assign(t, { type: "codespan", raw: target, text: target });
    }
  });
  const heading = tokens.find((t) => t.type === "heading" && t.depth === 1);
  return {
    html: linkCitationsInHtml(md.parser(tokens)),
    title: heading && heading.type === "heading" ? heading.text : slug.join("/"),
  };
}
