/** What a signed-in user sees on a page their role may not open. */
export function Forbidden({ needed }: { needed: string }) {
  return (
    <div className="banner banner-bad" role="alert">
      <strong>Not allowed.</strong> This page needs the {needed} role; ask an admin.
    </div>
  );
}
