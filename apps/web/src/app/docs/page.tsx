import fs from "node:fs";
import path from "node:path";
import type { Metadata } from "next";
import Link from "next/link";
import { requirePage } from "../../server/auth/access.js";
import { findDocsDir } from "../../server/docs/docs.js";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Documentation" };

const SECTIONS = [
  { dir: "", title: "Guides" },
  { dir: "rules", title: "Advisor rules" },
  { dir: "reference", title: "Reference" },
] as const;

/** Every page of a docs/ directory with its first heading, in file-name order. */
function pagesOf(docs: string, dir: string): { href: string; title: string }[] {
  const full = path.join(docs, dir);
  if (!fs.existsSync(full)) return [];
  return fs
    .readdirSync(full)
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => {
      const text = fs.readFileSync(path.join(full, f), "utf8");
      const title = /^#\s+(.+)$/m.exec(text)?.[1]?.trim() ?? f.replace(/\.md$/, "");
      const slug = f === "README.md" ? dir : [dir, f.replace(/\.md$/, "")].filter(Boolean).join("/");
      return { href: `/docs/${slug}`, title };
    });
}

/** GET /docs: the index of the repository's documentation the console renders. */
export default async function DocsIndex() {
  await requirePage("/docs", "/docs");
  const docs = findDocsDir(process.cwd());
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Documentation</h1>
          <p className="subtle">
            The repository's docs/, rendered: guides, every advisor rule, the reference.
          </p>
        </div>
      </div>
      {!docs ? (
        <p className="empty">No docs/ directory beside the console.</p>
      ) : (
        SECTIONS.map((s) => (
          <section key={s.title} className="section" aria-labelledby={`docs-${s.title}`}>
            <h2 id={`docs-${s.title}`}>{s.title}</h2>
            <ul>
              {pagesOf(docs, s.dir).map((p) => (
                <li key={p.href}>
                  <Link href={p.href}>{p.title}</Link>
                </li>
              ))}
            </ul>
          </section>
        ))
      )}
    </>
  );
}
