/**
 * Wrong sign-in tokens, counted per client (./client-key.ts): a few in a while lock that client
 * out for a short time, the right token included, so guessing goes at a few tries an hour
 * instead of hundreds a second. Values and why: docs/decisions/0306-inbox-sign-in-by-default.md.
 *
 * Pure state with the clock passed in, so windows and lockouts are tested without waiting. The
 * process's one limiter is in ../inbox/inbox-access.server.ts.
 */

/** Wrong tokens one client may send within the window... */
export const SIGN_IN_MAX_FAILURES = 5;
export const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;
/** ...before it is locked out this long. */
export const SIGN_IN_LOCKOUT_MS = 5 * 60 * 1000;
/** Clients tracked at once: about 1 MB at most. */
export const SIGN_IN_MAX_CLIENTS = 10_000;

export interface SignInLimiterOptions {
  maxFailures: number;
  windowMs: number;
  lockoutMs: number;
  maxClients: number;
  now?: () => number;
}

export type SignInGate = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export interface SignInLimiter {
  /** Whether `client` may try a token now. */
  check(client: string): SignInGate;
  /** A wrong token from `client`: how many in this window, and whether that locked it out. */
  failed(client: string): { failures: number; lockedOut: boolean };
  /** The right token: the client's count starts over. */
  succeeded(client: string): void;
  /** Clients tracked. */
  size(): number;
}

interface ClientRecord {
  windowStartedAt: number;
  failures: number;
  /** 0 while not locked out. */
  lockedUntil: number;
}

export function createSignInLimiter(options: SignInLimiterOptions): SignInLimiter {
  const { maxFailures, windowMs, lockoutMs, maxClients } = options;
  const now = options.now ?? Date.now;
  // In order of each record's window start (a new window is a new entry): the oldest first.
  const records = new Map<string, ClientRecord>();

  const stale = (record: ClientRecord, at: number) =>
    record.lockedUntil > 0 ? at >= record.lockedUntil : at - record.windowStartedAt >= windowMs;

  /** The client's record, if it still counts. */
  const current = (client: string, at: number) => {
    const record = records.get(client);
    if (record && stale(record, at)) {
      records.delete(client);
      return undefined;
    }
    return record;
  };

  /** Room for one more client: stale records go first, then the oldest. */
  const makeRoom = (at: number) => {
    for (const [client, record] of records) {
      if (records.size < maxClients) return;
      if (stale(record, at)) records.delete(client);
    }
    while (records.size >= maxClients) {
      records.delete(records.keys().next().value as string);
    }
  };

  return {
    check(client) {
      const at = now();
      const record = current(client, at);
      if (!record || record.lockedUntil === 0) return { allowed: true };
      return { allowed: false, retryAfterSeconds: Math.ceil((record.lockedUntil - at) / 1000) };
    },
    failed(client) {
      const at = now();
      let record = current(client, at);
      if (!record) {
        makeRoom(at);
        record = { windowStartedAt: at, failures: 0, lockedUntil: 0 };
        records.set(client, record);
      }
      record.failures++;
      const lockedOut = record.failures >= maxFailures;
      if (lockedOut && record.lockedUntil === 0) record.lockedUntil = at + lockoutMs;
      return { failures: record.failures, lockedOut };
    },
    succeeded(client) {
      records.delete(client);
    },
    size: () => records.size,
  };
}
