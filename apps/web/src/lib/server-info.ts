/**
 * What the production server (apps/web/server.mjs) tells the app: its address, and the header in which
 * it passes each request's TCP peer address. Absent under plain `next start` or `next dev`, which
 * report no peer: then the auth-proxy mode refuses to start.
 */
export interface ServerInfo {
  readonly host: string;
  readonly port: number;
  readonly peerHeader: string;
  /** Next's BUILD_ID of the build it serves (.next/BUILD_ID): the kept fleet read is this build's only. */
  readonly buildId?: string;
  /**
   * Called by src/instrumentation.ts when its start-up checks are done, with the reason when they
   * failed: server.mjs listens only after this (Next can run the hook after its prepare() resolved).
   */
  readonly startedUp?: (failure?: string) => void;
  /** A full garbage collection of the process's heap (src/server/fleet/collect.ts). */
  readonly collectGarbage?: () => void;
}

export const serverInfo = (): ServerInfo | undefined =>
  (globalThis as Record<symbol, ServerInfo | undefined>)[Symbol.for("untorn.server")];

/** The request's TCP peer as server.mjs saw it (any client's own x-untorn-peer was removed), or null. */
export function peerAddress(h: Headers): string | null {
  const info = serverInfo();
  if (!info) return null;
  return h.get(info.peerHeader) || null;
}
