/**
 * Bytes that all requests together may hold in memory at once. In local inbox mode the tunnel
 * keeps each envelope whole until it is written (up to SENTRY_TUNNEL_MAX_BYTES each); without
 * a shared bound, a few thousand slow uploads would hold gigabytes (measured: 2,000 trickling
 * uploads took the server from 0.6 to 2.1 GB).
 */
export interface ByteBudget {
  /** Takes `bytes` if they fit, and says whether they did. */
  take(bytes: number): boolean;
  give(bytes: number): void;
  used(): number;
}

export function createByteBudget(max: number): ByteBudget {
  let used = 0;
  return {
    take(bytes) {
      if (used + bytes > max) return false;
      used += bytes;
      return true;
    },
    give(bytes) {
      used = Math.max(0, used - bytes);
    },
    used: () => used,
  };
}
