/**
 * Runs once when the server starts: a bad configuration stops it here with every problem named, and
 * the first fleet read starts in the background, so the first visitor does not wait for a 10,000-instance
 * replay to load.
 */
export async function register(): Promise<void> {
  const { env } = await import("./env.js");
  env();
  const { getFleetView } = await import("./server/data.js");
  // After the server listens (decoding a large replay blocks for seconds). Failures are the first page's
  // to show (banner, empty state); here they only cost the head start.
  setTimeout(() => void getFleetView().catch(() => undefined), 0);
}
