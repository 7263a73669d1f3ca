/**
 * The tunnel's fairness between clients: the receive buffer's byte budget, the local inbox's
 * rate per client, and the slots one client may hold at once. Pure state, the clock passed in.
 */
import { workerShareOf } from '#app/server/cluster/worker-count.server';

/** 'client': the client holds its share already (429); 'full': everyone together does (503). */
export type BudgetAnswer = 'ok' | 'client' | 'full';

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
export interface ByteBudgetLimits {
  /** All envelopes together. */
  total: number;
  /** One client's envelopes together. */
  perClient: number;
  /** The part of `total` that only envelopes of at most `smallEnvelope` bytes may use. */
  reserve: number;
  smallEnvelope: number;
}

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

/**
 * Each client's rate into the local inbox: envelopes and bytes, each a token bucket. The local
 * DSN is public, so without a rate one client could fill the inbox's raw events or keep its
 * ingest thread busy while everyone else's reports wait. Past either bucket the tunnel answers
 * 429 with `Retry-After` and `X-Sentry-Rate-Limits` (the browser SDK keeps the envelope and
 * waits as told). Local inbox mode only: Sentry applies its own rates.
 *
 * Bytes are charged once the envelope has arrived, so a bucket may go into debt; while it is,
 * the client's next envelopes wait. Pure: the clock is passed in
 * (docs/decisions/0313-inbox-rate-per-client.md).
 */
export interface ClientRateLimits {
  envelopesPerSecond: number;
  envelopeBurst: number;
  bytesPerSecond: number;
  byteBurst: number;
  /** Clients tracked at once; past it, the clients whose buckets are full are forgotten first. */
  maxClients: number;
}

/** 100 envelopes a second, 1,000 at once; 10 MiB a second, 100 MiB at once. */
export const CLIENT_RATE_LIMITS: ClientRateLimits = {
  envelopesPerSecond: 100,
  envelopeBurst: 1000,
  bytesPerSecond: 10 * 1024 * 1024,
  byteBurst: 100 * 1024 * 1024,
  maxClients: 10_000,
};

export type RateAnswer = { ok: true } | { ok: false; retryAfterSeconds: number };

export interface ClientRate {
  /** Takes one envelope of `client`'s rate now; refused while either bucket is empty. */
  admit(client: string): RateAnswer;
  /** Charges the envelope's size once it has arrived. */
  charge(client: string, bytes: number): void;
  /** Clients tracked now (tests). */
  size(): number;
}

interface Buckets {
  envelopes: number;
  bytes: number;
  at: number;
}

export function createClientRate(limits: ClientRateLimits, now: () => number): ClientRate {
  const clients = new Map<string, Buckets>();

  /** The client's buckets, refilled to now. */
  const bucketsOf = (client: string): Buckets => {
    const at = now();
    let buckets = clients.get(client);
    if (!buckets) {
      if (clients.size >= limits.maxClients) forgetIdle(at);
      buckets = { envelopes: limits.envelopeBurst, bytes: limits.byteBurst, at };
      clients.set(client, buckets);
      return buckets;
    }
    const seconds = Math.max(0, at - buckets.at) / 1000;
    buckets.envelopes = Math.min(
      limits.envelopeBurst,
      buckets.envelopes + seconds * limits.envelopesPerSecond,
    );
    buckets.bytes = Math.min(limits.byteBurst, buckets.bytes + seconds * limits.bytesPerSecond);
    buckets.at = at;
    return buckets;
  };

  /** Drops clients whose buckets have refilled (they are as good as new), else the oldest. */
  const forgetIdle = (at: number) => {
    const fullAfterMs = Math.max(
      (limits.envelopeBurst / limits.envelopesPerSecond) * 1000,
      (limits.byteBurst / limits.bytesPerSecond) * 1000,
    );
    for (const [client, buckets] of clients) {
      if (at - buckets.at >= fullAfterMs) clients.delete(client);
    }
    if (clients.size >= limits.maxClients) {
      const oldest = clients.keys().next().value;
      if (oldest !== undefined) clients.delete(oldest);
    }
  };

  return {
    admit(client) {
      const buckets = bucketsOf(client);
      if (buckets.envelopes >= 1 && buckets.bytes > 0) {
        buckets.envelopes -= 1;
        return { ok: true };
      }
      const envelopeWait =
        buckets.envelopes >= 1 ? 0 : (1 - buckets.envelopes) / limits.envelopesPerSecond;
      const byteWait = buckets.bytes > 0 ? 0 : (1 - buckets.bytes) / limits.bytesPerSecond;
      return {
        ok: false,
        retryAfterSeconds: Math.max(1, Math.ceil(Math.max(envelopeWait, byteWait))),
      };
    },
    charge(client, bytes) {
      bucketsOf(client).bytes -= bytes;
    },
    size: () => clients.size,
  };
}

/** Answer headers for a client past its rate: every category waits. */
export function clientRateHeaders(retryAfterSeconds: number): Record<string, string> {
  const seconds = String(retryAfterSeconds);
  return {
    'retry-after': seconds,
    'x-sentry-rate-limits': `${seconds}::organization:client_rate`,
  };
}

/**
 * Answer headers for a client past its share of what the tunnel holds for slow uploads, for
 * `bodyTimeoutMs` (SENTRY_TUNNEL_BODY_TIMEOUT_MS): 429 with `Retry-After` and
 * `X-Sentry-Rate-Limits`, so that the browser SDK backs off (it drops a 503 and retries nothing,
 * but keeps a 429's envelope and waits as told). The wait is the body deadline: by then every
 * upload the client has in progress has ended, one way or the other
 * (docs/decisions/0611-tunnel-shared-fairly.md).
 */
export function clientShareHeaders(bodyTimeoutMs: number): Record<string, string> {
  const seconds = String(Math.max(1, Math.ceil(bodyTimeoutMs / 1000)));
  // No categories: every kind of envelope waits (scope and reason are for people, the SDK
  // ignores them).
  return {
    'retry-after': seconds,
    'x-sentry-rate-limits': `${seconds}::organization:client_share`,
  };
}

/** At most `perClient` of something at once for each client. */
export interface ClientSlots {
  readonly perClient: number;
  /** Takes one of `client`'s slots; false when it holds them all. */
  enter(client: string): boolean;
  leave(client: string): void;
  heldBy(client: string): number;
}

export function createClientSlots(perClient: number): ClientSlots {
  const held = new Map<string, number>();
  return {
    perClient,
    enter(client) {
      const count = held.get(client) ?? 0;
      if (count >= perClient) return false;
      held.set(client, count + 1);
      return true;
    },
    leave(client) {
      const count = (held.get(client) ?? 0) - 1;
      if (count > 0) held.set(client, count);
      else held.delete(client);
    },
    heldBy: (client) => held.get(client) ?? 0,
  };
}
