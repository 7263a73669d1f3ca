/**
 * An envelope judged the way Relay (Sentry's ingest) judges it at its envelope endpoint, for
 * local inbox mode: either a valid envelope, or the status and reason Relay would answer with.
 * Pure and linear: every rule is checked while the items are read, so a flood of items is
 * turned away at the first one over a limit, never parsed whole.
 *
 * 400 (`BadStoreRequest`, https://github.com/getsentry/relay/blob/master/relay-server/src/endpoints/common.rs):
 * - an empty body ("empty request body");
 * - bad framing (envelope.ts): no header, a header that is not a JSON object, a missing newline
 *   after a header or a sized payload, an item header without a string `type`, a `length` that
 *   is not a u32 or runs past the end, whitespace where an item should start;
 * - envelope header fields of the wrong type: an `event_id` that is not a UUID, a `sent_at` that
 *   is not an RFC 3339 datetime (`EnvelopeHeaders`,
 *   https://github.com/getsentry/relay/blob/master/relay-server/src/envelope/mod.rs).
 *
 * 413 (`BadStoreRequest::Overflow`): the per-type limits of `check_envelope_size_limits`
 * (https://github.com/getsentry/relay/blob/master/relay-server/src/utils/sizes.rs) with Relay's
 * default `limits` (https://github.com/getsentry/relay/blob/master/relay-config/src/config.rs):
 * see ENVELOPE_LIMITS. Relay checks them after framing; here they are checked as items are read,
 * so an envelope both too long and badly framed further on gets the 413.
 *
 * What Relay accepts with 200 and then drops is accepted here too and left to classification
 * (classify-envelope.ts): an envelope with no items, an event payload that is not a JSON
 * object, an invalid session. The envelope's `dsn` is the tunnel's to check (403).
 */
import { type EnvelopeItem, readEnvelopeHeader, readItem } from './envelope';
import { normaliseEventId, parseDateTime } from './protocol-values';

export interface ValidEnvelope {
  header: Record<string, unknown>;
  /** The header's `event_id` as 32 lower-case hex digits, when it has one. */
  eventId?: string;
  /** The header's `sent_at` in milliseconds since the epoch, when it has one. */
  sentAt?: number;
  items: EnvelopeItem[];
}

export type ReadEnvelopeResult =
  | { ok: true; envelope: ValidEnvelope }
  | { ok: false; status: 400 | 413; reason: string };

const KIB = 1024;
const MIB = 1024 * KIB;

interface Limit {
  /** Largest payload of one item (for a container: its average item). */
  itemBytes: number;
  /** Most items of the group in one envelope. */
  count: number;
  /** Largest payload of all the group's items together. */
  totalBytes: number;
}

const limit = (itemBytes: number, count: number, totalBytes = itemBytes): Limit => ({
  itemBytes,
  count,
  totalBytes,
});

/**
 * Relay's default limits per item group (relay-config `Limits::default`, applied by sizes.rs).
 * Event-like items share one group: at most one of them per envelope.
 */
export const ENVELOPE_LIMITS = {
  event: limit(1 * MIB, 1), // max_event_size
  attachment: limit(200 * MIB, 30, 200 * MIB), // max_attachment_size, _count, max_attachments_size
  replayRecording: limit(10 * MIB, 1), // max_replay_compressed_size
  replayVideo: limit(10 * MIB, 1),
  session: limit(10 * MIB, 100, 10 * MIB), // max_sessions_size, max_session_count
  clientReport: limit(100 * KIB, 100, 100 * KIB), // max_client_reports_size, _count
  profile: limit(50 * MIB, 1), // max_profile_size
  checkIn: limit(100 * KIB, 1), // max_check_in_size
  statsd: limit(1 * MIB, 1), // max_statsd_size
  metricBuckets: limit(1 * MIB, 1), // max_metric_buckets_size
  log: limit(2 * MIB, 1, 12 * MIB), // max_log_size, max_container_size
  traceMetric: limit(1 * MIB, 1, 12 * MIB), // max_trace_metric_size, max_container_size
  spanContainer: limit(10 * MIB, 1, 12 * MIB), // max_span_size, max_container_size
  span: limit(10 * MIB, 25, 12 * MIB), // max_span_size, max_standalone_span_count
} as const satisfies Record<string, Limit>;

type Group = keyof typeof ENVELOPE_LIMITS;

/** Relay's item type names (`ItemType::name`) and the limit each counts against. */
const GROUP_OF: Record<string, Group> = {
  event: 'event',
  transaction: 'event',
  security: 'event',
  raw_security: 'event',
  replay_event: 'event',
  feedback: 'event', // ItemType::UserReportV2
  form_data: 'event',
  attachment: 'attachment',
  unreal_report: 'attachment',
  user_report: 'attachment',
  replay_recording: 'replayRecording',
  replay_video: 'replayVideo',
  session: 'session',
  sessions: 'session',
  client_report: 'clientReport',
  profile: 'profile',
  profile_chunk: 'profile',
  check_in: 'checkIn',
  statsd: 'statsd',
  metric_buckets: 'metricBuckets',
  log: 'log',
  trace_metric: 'traceMetric',
};

/** Content types of items that carry many items (`ContentType::is_container`). */
const CONTAINER_TYPES = new Set([
  'application/vnd.sentry.items.span.v2+json',
  'application/vnd.sentry.items.log+json',
  'application/vnd.sentry.items.trace-metric+json',
]);

/**
 * Relay sets no limit on item types it does not know (it drops them in processing mode). So that
 * they cannot make the inbox read items without end, the envelope may hold no more items than
 * one could within every limit above.
 */
export const MAX_ITEMS = Object.values(ENVELOPE_LIMITS).reduce((sum, { count }) => sum + count, 0);

export function readEnvelope(bytes: Uint8Array): ReadEnvelopeResult {
  if (bytes.length === 0) return invalid('empty request body');
  const first = readEnvelopeHeader(bytes);
  if ('error' in first) return invalid(`invalid event envelope: ${first.error}`);
  const { header } = first;
  const eventId = normaliseEventId(header.event_id);
  const sentAt = parseDateTime(header.sent_at);
  if (
    (header.event_id != null && eventId === undefined) ||
    (header.sent_at != null && sentAt === undefined)
  ) {
    return invalid('invalid event envelope: invalid envelope header');
  }
  const budget = new Budget();
  const items: EnvelopeItem[] = [];
  let offset = first.next;
  while (offset < bytes.length) {
    const read = readItem(bytes, offset);
    if ('error' in read) return invalid(`invalid event envelope: ${read.error}`);
    const over = budget.take(read.item);
    if (over) return { ok: false, status: 413, reason: over };
    items.push(read.item);
    offset = read.next;
  }
  const envelope: ValidEnvelope = { header, items };
  if (eventId !== undefined) envelope.eventId = eventId;
  if (sentAt !== undefined) envelope.sentAt = sentAt;
  return { ok: true, envelope };
}

function invalid(reason: string): ReadEnvelopeResult {
  return { ok: false, status: 400, reason };
}

/** What is left of each limit as the items are read (`Limit::apply` in sizes.rs). */
class Budget {
  private items = 0;
  private readonly left = new Map<Group, { count: number; totalBytes: number }>();

  /** Takes the item from its group's budget; the reason for a 413 when it does not fit. */
  take(item: EnvelopeItem): string | undefined {
    const type = item.header.type as string;
    this.items += 1;
    const group = groupOf(item);
    const overflow = `envelope exceeded size limits for type '${type}'`;
    if (!group)
      return this.items > MAX_ITEMS ? `${overflow}: more than ${MAX_ITEMS} items` : undefined;
    const limits = ENVELOPE_LIMITS[group];
    const left = this.left.get(group) ?? { count: limits.count, totalBytes: limits.totalBytes };
    const size = item.payload.length;
    const itemCount = CONTAINER_TYPES.has(String(item.header.content_type))
      ? Math.max(Number(item.header.item_count ?? 1), 1)
      : 1;
    if (
      Math.floor(size / itemCount) > limits.itemBytes ||
      left.count < 1 ||
      left.totalBytes < size
    ) {
      return overflow;
    }
    this.left.set(group, { count: left.count - 1, totalBytes: left.totalBytes - size });
    return undefined;
  }
}

function groupOf(item: EnvelopeItem): Group | undefined {
  const type = item.header.type as string;
  if (type === 'span') {
    return CONTAINER_TYPES.has(String(item.header.content_type)) ? 'spanContainer' : 'span';
  }
  return Object.hasOwn(GROUP_OF, type) ? GROUP_OF[type] : undefined;
}
