import Link from "next/link";

export default function NotFound() {
  return (
    <div className="empty">
      <h1>Not found</h1>
      <p>There is no page here.</p>
      <p>
        <Link href="/">Back to the fleet</Link>
      </p>
    </div>
  );
}
