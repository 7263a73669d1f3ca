/**
 * What the main thread and the inbox's ingest thread say to each other
 * (./ingest-thread.server.ts, ./ingest-worker.ts). One request per envelope, one answer per
 * request; the bytes travel by transfer, not by copy.
 */
import type { AlertSettings } from '../alerts/alert-policy';

export interface IngestRequest {
  id: number;
  bytes: Uint8Array;
  /** When the tunnel (or the server's own client) received it, ms since the epoch. */
  receivedAt: number;
}

/** Stored (or counted, or a repeat): what Sentry's ingest would answer 200 to. */
export interface IngestAccepted {
  id: number;
  ok: true;
  /** The event's normalised id, when the envelope carried an event. */
  eventId?: string;
}

export interface IngestRefused {
  id: number;
  ok: false;
  /** `rejected`: the envelope is bad (400, as Relay would); the others fail the store. */
  code:
    | 'rejected'
    | typeof INGEST_BUSY
    | typeof INGEST_OVER_SHARE
    | typeof INGEST_STOPPED
    | 'failed'
    | 'timeout';
  message: string;
  /** For `rejected`: Relay's status, 400, or 413 for a size or count limit. */
  status?: 400 | 413;
}

export type IngestAnswer = IngestAccepted | IngestRefused;

/** Asks the thread to go on with the inbox's upkeep: a clear or deletes asked for (decision 1001). */
export interface UpkeepRequest {
  kind: 'upkeep';
}

/** What the thread tells the main thread besides its answers. */
export type IngestNotice =
  /** Issues evicted to keep the file within MONITORING_INBOX_MAX_MB. */
  | { kind: 'evicted'; issues: number }
  /** No upkeep is left to do (a clear or deletes finished, their space given back). */
  | { kind: 'upkeep-done' }
  /** The alert channels that keep failing changed (for /health); empty when none is. */
  | { kind: 'alert-channels'; failing: string[] }
  /** A line from the alert sender for the log (rate-limited by kind on the main thread). */
  | { kind: 'alert-log'; logKind: string; line: string };

export function isIngestNotice(message: unknown): message is IngestNotice {
  const kind = (message as { kind?: unknown } | null)?.kind;
  return (
    kind === 'evicted' ||
    kind === 'upkeep-done' ||
    kind === 'alert-channels' ||
    kind === 'alert-log'
  );
}

/** What the thread is started with. */
export interface IngestThreadData {
  databasePath: string;
  maxEvents: number;
  /** MONITORING_INBOX_MAX_MB. */
  maxMb: number;
  /** The alert channels and rules (local inbox mode); none: no alert is raised or sent. */
  alerts?: AlertThreadSettings;
  /** Where the build's source maps are, for grouping as Sentry does; none under `vinxi dev`. */
  buildOutput?: {
    clientMapsDir: string;
    publicDir: string;
    serverDir: string;
    projectRoot: string;
  };
}

/** What the thread's alert sender is built from: plain values, as a worker's data must be. */
export interface AlertThreadSettings extends AlertSettings {
  /** MONITORING_ALERT_SPIKE as configured (`100/1h`). */
  spike?: string;
  /** PUBLIC_URL, for the alerts' links. */
  publicUrl?: string;
}

/** The built thread's file, beside the server's entry (build/server-side-files.ts writes it). */
export const BUILT_WORKER_FILE = 'inbox-ingest-worker.mjs';

/** Too many envelopes waiting already: overload, answered 503 with Retry-After. */
export const INGEST_BUSY = 'busy';
/** The client has its share of the queue waiting already: answered 429 with Retry-After. */
export const INGEST_OVER_SHARE = 'over-share';
/** The thread stopped (a crash) before it answered. */
export const INGEST_STOPPED = 'stopped';

/**
 * Bytes that can be moved to the thread without touching anyone else's memory: the bytes
 * themselves when they are the whole of their buffer, else a tight copy. A view into a larger
 * buffer (a socket read, Node's pool of small Buffers) would move the whole buffer.
 */
export function asTransferable(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  const { buffer } = bytes;
  if (
    buffer instanceof ArrayBuffer &&
    bytes.byteOffset === 0 &&
    bytes.byteLength === buffer.byteLength
  ) {
    return bytes as Uint8Array<ArrayBuffer>;
  }
  return new Uint8Array(bytes);
}

/** The error a refused ingest rejects with; its `code` says how the tunnel answers. */
export class IngestError extends Error {
  override name = 'IngestError';
  constructor(
    readonly code: IngestRefused['code'],
    message: string,
    readonly status?: 400 | 413,
  ) {
    super(message);
  }
}

/** By shape, not by class: the tunnel and the inbox may be different copies of this module. */
export function ingestErrorCode(error: unknown): IngestRefused['code'] | undefined {
  if (!(error instanceof Error) || error.name !== 'IngestError') return undefined;
  return (error as IngestError).code;
}

/** The status Relay would answer a rejected envelope with. */
export function rejectionStatus(error: unknown): 400 | 413 {
  return (error as { status?: unknown }).status === 413 ? 413 : 400;
}
