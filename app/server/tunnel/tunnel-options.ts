/**
 * What the tunnel is given. Every dependency is an argument, so the same core runs in the app,
 * on a bare node:http server (tests/unit/tunnel) and in the benchmark.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AllowList } from './allow-list';
import type { ByteBudget } from './byte-budget';
import type { ClientRate } from './client-rate';
import type { ClientSlots } from './client-share';
import type { Upstream } from './upstream.server';

export interface TunnelOptions {
  allowList: AllowList;
  maxBytes: number;
  /** How long Sentry has to answer, from the moment the forward begins. */
  timeoutMs: number;
  /** How long the client has to send the whole envelope, from the start of the exchange. */
  bodyTimeoutMs: number;
  upstream: Upstream;
  /**
   * Where envelopes for the local inbox DSN go; resolves once stored, with the event's id as
   * the store normalised it. A rejection answers by its IngestError code
   * (app/server/inbox/store/ingest-protocol.ts): `rejected` 400 with its reason (what Relay
   * refuses), `busy` 503, anything else 500.
   */
  storeLocally(envelope: Uint8Array): Promise<{ eventId?: string }>;
  /**
   * What local envelopes being received may hold in memory: per client (then 429) and all
   * together (then 503).
   */
  localBuffer: ByteBudget;
  /** Each client's rate into the local inbox: envelopes and bytes (then 429). */
  localRate: ClientRate;
  /**
   * Envelopes whose body is still arriving, per client, forwarded to Sentry or stored in the
   * local inbox (then 429): slow uploads serve a request, so no eviction closes them.
   */
  streamingForwards: ClientSlots;
  /** One line per rejected or failed request; never envelope contents. */
  log(line: string): void;
  /** Lines a flood of requests would repeat, rate-limited per kind (a fixed label). */
  logLimited(kind: string, line: string): void;
  /** Also log every forwarded envelope. */
  debug: boolean;
}

export type TunnelHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;
