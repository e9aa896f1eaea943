import fs from "node:fs";
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { requirePage } from "../../../server/auth/access.js";
import { docFile, docPathOf, findDocsDir, renderDoc } from "../../../server/docs/docs.js";

export const dynamic = "force-dynamic";

type Params = Promise<{ slug: string[] }>;

function load(slug: string[]) {
  const dir = findDocsDir(process.cwd());
  const file = dir ? docFile(dir, slug) : null;
  if (!dir || !file) return null;
  return renderDoc(fs.readFileSync(file, "utf8"), docPathOf(dir, file));
}

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const doc = load((await params).slug);
  return { title: doc?.title ?? "Documentation" };
}

export default async function DocPage({ params }: { params: Params }) {
  const { slug } = await params;
  await requirePage("/docs/[...slug]", `/docs/${slug.map(encodeURIComponent).join("/")}`);
  const doc = load(slug);
  if (!doc) notFound();
  return (
    <>
      <p className="subtle">
        <Link href="/docs">Docs</Link> / docs/{slug.join("/")}.md
      </p>
      {/* biome-ignore lint/security/noDangerouslySetInnerHtml: the repository's own docs, rendered by marked */}
      <article className="markdown section" dangerouslySetInnerHTML={{ __html: doc.html }} />
    </>
  );
}
