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
