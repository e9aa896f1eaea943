import Link from "next/link";
import { splitCitations } from "../lib/citations.js";

/** Text from the advisor or the catalog, with its citations and upstream URLs as links. */
export function Cited({ text }: { text: string }) {
  const parts = splitCitations(text);
  if (parts.length === 1 && typeof parts[0] === "string") return <>{text}</>;
  // Each part keyed by where it starts in the text: stable and unique.
  let offset = 0;
  const keyed = parts.map((p) => {
    const at = offset;
    offset += typeof p === "string" ? p.length : p.text.length;
    return { p, key: `c${at}` };
  });
  return (
    <>
      {keyed.map(({ p, key }) =>
        typeof p === "string" ? (
          <span key={key}>{p}</span>
        ) : p.external ? (
          <a key={key} href={p.href} target="_blank" rel="noreferrer">
            {p.text}
          </a>
        ) : (
          <Link key={key} href={p.href}>
            {p.text}
          </Link>
        ),
      )}
    </>
  );
}
