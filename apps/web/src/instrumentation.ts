/**
 * Runs once when the server starts: a bad configuration stops it here with every problem named; the
 * store is opened (its migrations run) so a locked or damaged data directory is said at once, in the log
 * and then in a banner; and the first fleet read starts in the background, so the first visitor does not
 * wait for a 10,000-instance replay to load.
 */
export async function register(): Promise<void> {
  const { env } = await import("./env.js");
  const e = env();
  const { getStore, storeLocation } = await import("./server/store.js");
  try {
    await getStore(e);
    console.log(`untorn: store ready at ${storeLocation(e)} (migrations applied)`);
  } catch (err) {
    // Not fatal: the console still profiles the fleet, without the metadata users stored.
    console.error(
      `untorn: the store at ${storeLocation(e)} cannot be opened, fleet metadata is unavailable until it can: ${(err as Error).message}`,
    );
  }
  const { getFleetView } = await import("./server/data.js");
  // After the server listens (decoding a large replay blocks for seconds). Failures are the first page's
  // to show (banner, empty state); here they only cost the head start.
  setTimeout(() => void getFleetView().catch(() => undefined), 0);
}
