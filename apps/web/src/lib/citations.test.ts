import { describe, expect, it } from "vitest";
import { linkCitationsInHtml, referenceHref, splitCitations } from "./citations.js";

const joined = (text: string) =>
  splitCitations(text)
    .map((p) => (typeof p === "string" ? p : p.text))
    .join("");

describe("citations", () => {
  it("links each section of a citation to its anchor", () => {
    const parts = splitCitations("stays on (docs/reference/atomic-storage.md §8.5, §8.7).");
    expect(parts).toEqual([
      "stays on (",
      {
        text: "docs/reference/atomic-storage.md §8.5",
        href: "/docs/reference/atomic-storage#s8.5",
        external: false,
      },
      ", ",
      { text: "§8.7", href: "/docs/reference/atomic-storage#s8.7", external: false },
      ").",
    ]);
  });

  it("links citations of several pages, a bare page and upstream URLs, and loses no text", () => {
    const text =
      "modes (docs/reference/mysql.md §1.4, docs/reference/mariadb.md §2.2); see docs/reference/traps.md and https://jira.mariadb.org/browse/MDEV-31124.";
    const links = splitCitations(text).filter((p) => typeof p !== "string");
    expect(links.map((l) => l.href)).toEqual([
      "/docs/reference/mysql#s1.4",
      "/docs/reference/mariadb#s2.2",
      "/docs/reference/traps",
      "https://jira.mariadb.org/browse/MDEV-31124",
    ]);
    expect(links.at(-1)).toMatchObject({ external: true });
    expect(joined(text)).toBe(text);
  });

  it("leaves text without citations alone", () => {
    expect(splitCitations("Innodb_data_written counts 1 byte per page")).toEqual([
      "Innodb_data_written counts 1 byte per page",
    ]);
    expect(splitCitations("")).toEqual([]);
    expect(referenceHref("grants")).toBe("/docs/reference/grants");
  });

  it("links citations in rendered HTML but not inside code or existing links", () => {
    const html =
      '<p>stays on (docs/reference/mysql.md §1.7) <code>docs/reference/mysql.md §1.4</code> <a href="/x">docs/reference/mysql.md §1.5</a></p>';
    const out = linkCitationsInHtml(html);
    expect(out).toContain('<a href="/docs/reference/mysql#s1.7">docs/reference/mysql.md §1.7</a>');
    expect(out).toContain("<code>docs/reference/mysql.md §1.4</code>");
    expect(out).toContain('<a href="/x">docs/reference/mysql.md §1.5</a>');
  });
});
