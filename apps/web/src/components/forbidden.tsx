/** What a signed-in user sees on a page their role may not open (HTTP 403: app/forbidden.tsx). */
export function Forbidden({ needed }: { needed: string | null }) {
  return (
    <div className="banner banner-bad" role="alert">
      <strong>Not allowed.</strong>{" "}
      {needed
        ? `This page needs the ${needed} role; ask an admin.`
        : "Your role may not open this page; ask an admin."}
    </div>
  );
}
