/**
 * A client's share of what the tunnel holds for slow uploads, and the answer past it: 429 with
 * `Retry-After` and `X-Sentry-Rate-Limits`, so that the browser SDK backs off (it drops a 503
 * and retries nothing, but keeps a 429's envelope and waits as told). The wait is the body
 * deadline: by then every upload the client has in progress has ended, one way or the other.
 * Pure (docs/decisions/0611-tunnel-shared-fairly.md).
 */

/** Answer headers for a client past its share, for `bodyTimeoutMs` (SENTRY_TUNNEL_BODY_TIMEOUT_MS). */
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
