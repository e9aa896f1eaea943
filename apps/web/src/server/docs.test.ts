import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { docFile, findDocsDir, renderDoc, rewriteHref } from "./docs.js";

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
    expect(rewriteHref("../../README.md", ["rules", "x"])).toBe("../../README.md");
  });

  it("renders a rule page with its title", () => {
    const file = docFile(docs!, ["rules", "detect-only-step"])!;
    const doc = renderDoc(fs.readFileSync(file, "utf8"), ["rules", "detect-only-step"]);
    expect(doc.html).toContain("<h1");
    expect(doc.title.length).toBeGreaterThan(3);
  });
});
