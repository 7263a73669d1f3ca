/**
 * Bytes that envelopes being received may hold in memory at once, shared fairly. In local inbox
 * mode the tunnel keeps each envelope whole until it is written (up to SENTRY_TUNNEL_MAX_BYTES
 * each); without a shared bound, a few thousand slow uploads would hold gigabytes (measured:
 * 2,000 trickling uploads took the server from 0.6 to 2.1 GB). Shared by nothing else, the
 * bound was itself the target: 70 uploads of 1 MiB that stalled held all 64 MiB, and 104 of 111
 * real reports got 503 (docs/decisions/0611-tunnel-shared-fairly.md). So:
 * - each client (`clientKeyOf`: an IPv4 address, an IPv6 /64) holds at most `perClient` in
 *   envelopes still arriving (a whole envelope waiting to be written is not the client's doing);
 * - envelopes larger than `smallEnvelope` hold at most `total - reserve` together, so that the
 *   last `reserve` bytes stay for the small reports almost every page sends.
 * Pure.
 */
import { workerShareOf } from '#app/server/cluster/worker-count';

export interface ByteBudgetLimits {
  /** All envelopes together. */
  total: number;
  /** One client's envelopes together. */
  perClient: number;
  /** The part of `total` that only envelopes of at most `smallEnvelope` bytes may use. */
  reserve: number;
  smallEnvelope: number;
}

/** 'client': the client holds its share already (429); 'full': everyone together does (503). */
export type BudgetAnswer = 'ok' | 'client' | 'full';

/** What one envelope holds, from its first byte until its exchange ends. */
export interface Holding {
  /**
   * Holds `bytes` more of an envelope that is `envelopeBytes` long (as announced, or as far as
   * it has arrived), if they fit; says why not otherwise, and holds nothing more then.
   */
  grow(bytes: number, envelopeBytes: number): BudgetAnswer;
  /**
   * The whole envelope is in: it stops counting against its client's share (what a client can
   * be held to is how long it takes to send), and still counts in the whole until released.
   */
  arrived(): void;
  /** Gives everything back; once is enough, more is harmless. */
  release(): void;
}

export interface ByteBudget {
  readonly limits: ByteBudgetLimits;
  /** A new envelope from `client`, holding nothing yet. */
  holding(client: string): Holding;
  used(): number;
  /** What `client`'s envelopes still arriving hold. */
  usedBy(client: string): number;
}

export function createByteBudget(limits: ByteBudgetLimits): ByteBudget {
  let used = 0;
  const arriving = new Map<string, number>();
  const addArriving = (client: string, bytes: number) => {
    const left = (arriving.get(client) ?? 0) + bytes;
    if (left > 0) arriving.set(client, left);
    else arriving.delete(client);
  };
  return {
    limits,
    holding(client) {
      let held = 0;
      let stillArriving = true;
      const arrived = () => {
        if (!stillArriving) return;
        stillArriving = false;
        addArriving(client, -held);
      };
      return {
        grow(bytes, envelopeBytes) {
          const share = stillArriving ? (arriving.get(client) ?? 0) : 0;
          if (share + bytes > limits.perClient) return 'client';
          const room =
            envelopeBytes <= limits.smallEnvelope ? limits.total : limits.total - limits.reserve;
          if (used + bytes > room) return 'full';
          used += bytes;
          held += bytes;
          if (stillArriving) addArriving(client, bytes);
          return 'ok';
        },
        arrived,
        release() {
          arrived();
          used -= held;
          held = 0;
        },
      };
    },
    used: () => used,
    usedBy: (client) => arriving.get(client) ?? 0,
  };
}

/** Local envelopes being received, all together: 64 of the largest, or thousands of usual ones. */
const LOCAL_INBOX_BUFFER_BYTES = 64 * 1024 * 1024;
/** Kept for small envelopes: 128 of 64 KiB, or about 1,600 of the usual 5 KB. */
const SMALL_ENVELOPE_RESERVE_BYTES = 8 * 1024 * 1024;
/** An error with its stack and breadcrumbs, a session, a span batch: all well under this. */
const SMALL_ENVELOPE_BYTES = 64 * 1024;

/**
 * One worker's limits, of `workers`, for envelopes of at most `maxBytes`. The whole and the
 * reserve are the server's, divided among its workers, the whole never below one envelope of
 * `maxBytes` beside the reserve. A client may hold two of the largest at
 * once, or a 32nd of the worker's whole, whichever is more, so that it takes at least 28
 * clients (IPv4 addresses or IPv6 /64s) to hold the 56 MiB outside the reserve (with one
 * worker), and none can hold the reserve.
 */
export function localBufferLimits(maxBytes: number, workers: number): ByteBudgetLimits {
  const reserve = workerShareOf(SMALL_ENVELOPE_RESERVE_BYTES, workers);
  // Never less than the largest envelope allowed beside the reserve: a share too small for it
  // (many workers, or a SENTRY_TUNNEL_MAX_BYTES near the whole) would refuse it every time.
  const total = Math.max(workerShareOf(LOCAL_INBOX_BUFFER_BYTES, workers), maxBytes + reserve);
  return {
    total,
    perClient: Math.min(total, Math.max(2 * maxBytes, Math.floor(total / 32))),
    reserve,
    smallEnvelope: SMALL_ENVELOPE_BYTES,
  };
}
