import { headers } from "next/headers";
import { Forbidden } from "../components/forbidden.js";
import { PAGES, type PageName } from "../lib/permissions.js";

/** The page pattern (`/rollouts/[id]`) a path is, or null. */
function pageOf(path: string): PageName | null {
  for (const page of Object.keys(PAGES) as PageName[]) {
    const pattern = page
      .split("/")
      .map((part) => (part.startsWith("[...") ? ".+" : part.startsWith("[") ? "[^/]+" : part))
      .join("/");
    if (new RegExp(`^${pattern}$`).test(path)) return page;
  }
  return null;
}

/** What requirePage's forbidden() renders, with HTTP 403: the role the page needs. */
export default async function ForbiddenPage() {
  const path = ((await headers()).get("x-untorn-path") ?? "/").split("?")[0] ?? "/";
  const page = pageOf(path);
  return <Forbidden needed={page ? PAGES[page] : null} />;
}
