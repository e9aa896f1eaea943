import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { isMissingDoc } from "./doc-files.js";
import { docFile, docPathOf, findDocsDir, headingSlug, REPO_FILE, renderDoc, rewriteHref } from "./docs.js";

const docs = findDocsDir(process.cwd());

describe("docs pages", () => {
  it("finds the repository's docs and every rule page", () => {
    expect(docs).not.toBeNull();
    expect(docFile(docs!, ["rules", "doublewrite-share-high"])).toBe(
      path.join(docs!, "rules", "doublewrite-share-high.md"),
    );
  });

  it("serves only plain docs paths", () => {
    expect(docFile(docs!, ["..", "README"])).toBeNull();
    expect(docFile(docs!, ["rules", "..%2F..%2Fpackage"])).toBeNull();
    expect(docFile(docs!, ["rules", "nope"])).toBeNull();
    expect(docFile(docs!, [])).toBeNull();
  });

  it("turns links between docs pages into console routes", () => {
    expect(rewriteHref("../advisor.md#safety-gate", ["rules", "x"])).toBe("/docs/advisor#safety-gate");
    expect(rewriteHref("detect-only-step.md", ["rules", "x"])).toBe("/docs/rules/detect-only-step");
    expect(rewriteHref("https://example.com/a.md", ["rules", "x"])).toBe("https://example.com/a.md");
    expect(rewriteHref("../../README.md", ["rules", "x"])).toBe("/repo-files/README.md");
    expect(rewriteHref("../../../README.md", ["rules", "x"])).toBe("../../../README.md");
  });

  it("links the schemas, screenshots and benchmark results to their served files", () => {
    expect(rewriteHref("schemas/api-fleet.schema.json", ["web"])).toBe(
      "/repo-files/docs/schemas/api-fleet.schema.json",
    );
    expect(rewriteHref("screenshots/fleet.png", ["web"])).toBe("/repo-files/docs/screenshots/fleet.png");
    expect(rewriteHref("../bench/results/fleet.json", ["scaling"])).toBe(
      "/repo-files/bench/results/fleet.json",
    );
    expect(rewriteHref("../compose/prometheus", ["demo"])).toBe("../compose/prometheus");
  });

  it("shows a link into the rest of the repository as its path, and serves every link it keeps", () => {
    const demo = renderDoc(
      "See [the config](../compose/prometheus/prometheus.yml) and ![f](screenshots/fleet.png).",
      ["demo"],
    );
    expect(demo.html).toContain("<code>compose/prometheus/prometheus.yml</code>");
    expect(demo.html).toContain('src="/repo-files/docs/screenshots/fleet.png"');
    // Every docs page: each relative link or image names a page or a file that exists.
    const root = path.dirname(docs!);
    const pages = fs
      .readdirSync(docs!, { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".md"));
    expect(pages.length).toBeGreaterThan(20);
    const dead: string[] = [];
    for (const f of pages) {
      const slug = f.replace(/\.md$/, "").split(path.sep);
      const { html } = renderDoc(fs.readFileSync(path.join(docs!, f), "utf8"), slug);
      for (const m of html.matchAll(/(?:href|src)="([^"#]*)(?:#[^"]*)?"/g)) {
        const u = m[1]!;
        if (u === "" || /^[a-z]+:/i.test(u)) continue;
        const ok = u.startsWith("/docs/")
          ? docFile(docs!, u.slice("/docs/".length).split("/")) !== null
          : u.startsWith("/repo-files/")
            ? REPO_FILE.test(u.slice("/repo-files/".length)) &&
              fs.existsSync(path.join(root, u.slice("/repo-files/".length)))
            : false;
        if (!ok) dead.push(`${f}: ${u}`);
      }
    }
    expect(dead).toEqual([]);
  });

  it("renders a rule page with its title", () => {
    const file = docFile(docs!, ["rules", "detect-only-step"])!;
    const doc = renderDoc(fs.readFileSync(file, "utf8"), ["rules", "detect-only-step"]);
    expect(doc.html).toContain("<h1");
    expect(doc.title.length).toBeGreaterThan(3);
  });

  it("serves the domain reference, its index at the directory route", () => {
    const index = docFile(docs!, ["reference"]);
    expect(index).toBe(path.join(docs!, "reference", "README.md"));
    expect(docPathOf(docs!, index!)).toEqual(["reference", "README"]);
    const doc = renderDoc(fs.readFileSync(index!, "utf8"), docPathOf(docs!, index!));
    expect(doc.html).toContain('href="/docs/reference/mariadb"');
  });

  it("gives reference headings GitHub's anchors and a section anchor, and links citations", () => {
    expect(headingSlug("2.2 innodb_doublewrite")).toBe("22-innodb_doublewrite");
    expect(headingSlug("2.4 History (2013 Fusion-io / DirectFS)")).toBe(
      "24-history-2013-fusion-io--directfs",
    );
    const file = docFile(docs!, ["reference", "mariadb"])!;
    const doc = renderDoc(fs.readFileSync(file, "utf8"), ["reference", "mariadb"]);
    expect(doc.html).toContain('<h2 id="22-innodb_doublewrite"><a id="s2.2" aria-hidden="true"></a>');
    expect(doc.html).toContain('<h1 id="2-mariadb"><a id="s2" aria-hidden="true"></a>');
    const runbook = renderDoc(fs.readFileSync(docFile(docs!, ["runbook"])!, "utf8"), ["runbook"]);
    expect(runbook.html).toMatch(/<a href="\/docs\/reference\/[a-z-]+#s\d+(\.\d+)?">docs\/reference\//);
  });

  it("every markdown link between reference pages lands on a heading that exists", () => {
    const dir = path.join(docs!, "reference");
    const ids = new Map<string, Set<string>>();
    const pages = fs.readdirSync(dir).filter((f) => f.endsWith(".md"));
    for (const f of pages) {
      const html = renderDoc(fs.readFileSync(path.join(dir, f), "utf8"), [
        "reference",
        f.replace(/\.md$/, ""),
      ]).html;
      ids.set(f.replace(/\.md$/, ""), new Set([...html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]!)));
    }
    const broken: string[] = [];
    for (const f of pages) {
      const html = renderDoc(fs.readFileSync(path.join(dir, f), "utf8"), [
        "reference",
        f.replace(/\.md$/, ""),
      ]).html;
      for (const m of html.matchAll(/href="\/docs\/reference\/([a-z-]+)#([^"]+)"/g))
        if (!ids.get(m[1]!)?.has(m[2]!)) broken.push(`${f}: /docs/reference/${m[1]}#${m[2]}`);
    }
    expect(broken).toEqual([]);
  });
});

describe("isMissingDoc", () => {
  it("is true for a /docs/ path naming no page, false for a page and for other paths", () => {
    const cwd = fileURLToPath(new URL("../../../", import.meta.url));
    expect(isMissingDoc("/docs/rules/no-such-rule", cwd)).toBe(true);
    expect(isMissingDoc("/docs/%E0%A4%A", cwd)).toBe(true);
    expect(isMissingDoc("/docs/../../etc/passwd", cwd)).toBe(true);
    expect(isMissingDoc("/docs/security", cwd)).toBe(false);
    expect(isMissingDoc("/docs/reference", cwd)).toBe(false);
    expect(isMissingDoc("/instances/x", cwd)).toBe(false);
  });
});
