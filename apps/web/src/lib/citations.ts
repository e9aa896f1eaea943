/**
 * Citations in advisor and catalog text become links: `docs/reference/<page>.md §N.N` (and further
 * `, §M` of the same page) to the console's rendering of that section, and upstream URLs to themselves.
 * Pure: the components and the docs renderer share it.
 */

export type CitedPart = string | { readonly text: string; readonly href: string; readonly external: boolean };

const CITATION = /docs\/reference\/([a-z0-9-]+)\.md((?:\s*§\s*\d+(?:\.\d+)*)(?:\s*,\s*§\s*\d+(?:\.\d+)*)*)?/g;
const URL_RE = /https?:\/\/[^\s)<>"'\]]+[^\s)<>"'\].,;:!?]/g;

/** Console route of a reference section: `mariadb`, `2.2` → `/docs/reference/mariadb#s2.2`. */
export const referenceHref = (page: string, section?: string): string =>
  `/docs/reference/${page}${section ? `#s${section}` : ""}`;

function citationParts(match: string, page: string, sections: string | undefined): CitedPart[] {
  if (!sections) return [{ text: match, href: referenceHref(page), external: false }];
  const head = match.slice(0, match.length - sections.length);
  const out: CitedPart[] = [];
  let first = true;
  let last = 0;
  for (const m of sections.matchAll(/§\s*(\d+(?:\.\d+)*)/g)) {
    const start = m.index;
    const between = sections.slice(last, start);
    const text = first ? head + between + m[0] : m[0];
    if (!first && between) out.push(between);
    out.push({ text, href: referenceHref(page, m[1]), external: false });
    last = start + m[0].length;
    first = false;
  }
  return out;
}

/** Splits text into plain strings and links, in order; joining every part's text gives the input back. */
export function splitCitations(text: string): CitedPart[] {
  const hits: { start: number; end: number; parts: CitedPart[] }[] = [];
  for (const m of text.matchAll(CITATION))
    hits.push({ start: m.index, end: m.index + m[0].length, parts: citationParts(m[0], m[1] ?? "", m[2]) });
  for (const m of text.matchAll(URL_RE))
    if (!hits.some((h) => m.index < h.end && m.index + m[0].length > h.start))
      hits.push({
        start: m.index,
        end: m.index + m[0].length,
        parts: [{ text: m[0], href: m[0], external: true }],
      });
  hits.sort((a, b) => a.start - b.start);
  const out: CitedPart[] = [];
  let pos = 0;
  for (const h of hits) {
    if (h.start > pos) out.push(text.slice(pos, h.start));
    out.push(...h.parts);
    pos = h.end;
  }
  if (pos < text.length) out.push(text.slice(pos));
  return out;
}

const ESCAPE: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};
const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPE[c] ?? c);

/**
 * The same on rendered HTML: citations in text (never inside tags, `<code>`, `<pre>` or an existing link)
 * become anchors. URLs are left to the Markdown renderer.
 */
export function linkCitationsInHtml(html: string): string {
  let depth = 0;
  return html
    .split(/(<[^>]*>)/)
    .map((chunk) => {
      if (chunk.startsWith("<")) {
        if (/^<(a|code|pre)[\s>]/i.test(chunk)) depth++;
        else if (/^<\/(a|code|pre)>/i.test(chunk)) depth = Math.max(0, depth - 1);
        return chunk;
      }
      if (depth > 0 || !chunk.includes("docs/reference/")) return chunk;
      return splitCitations(chunk)
        .map((p) =>
          typeof p === "string" ? p : p.external ? p.text : `<a href="${escapeHtml(p.href)}">${p.text}</a>`,
        )
        .join("");
    })
    .join("");
}
