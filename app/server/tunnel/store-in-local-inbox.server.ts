/**
 * Phase 2b, local inbox mode: the envelope held whole (it is bounded by maxBytes) and handed to
 * `storeLocally`; the answer is Sentry's own, `{"id": …}`, once it is stored. Every exchange's
 * held bytes count against one budget shared fairly (`localBuffer`, ./byte-budget.ts), given
 * back when the exchange ends, however it ends. Past the client's share of envelopes still
 * arriving, 429 and the SDK waits; past the whole, 503 (docs/decisions/0310, 0611).
 */
import { ingestErrorCode, rejectionStatus } from '#app/server/inbox/store/ingest-protocol';
import { type Exchange, PLAIN_TEXT } from './exchange.server';
import { errorMessageOf, tunnelLogLine } from './tunnel.server';

const BUSY_HEADERS = { 'retry-after': '5' };

export function storeInLocalInbox(
  exchange: Exchange,
  eventId: string | undefined,
  ended: boolean,
): void {
  const { req, res, options, client } = exchange;
  const budget = options.localBuffer;
  // What the envelope announced (over maxBytes it was answered 413 before the body was read):
  // it decides whether the envelope may use the reserve for small ones.
  const declared = Number(req.headers['content-length'] ?? 0) || 0;
  const holding = budget.holding(client);
  res.once('close', holding.release);
  const hold = (bytes: number): boolean => {
    const answer = holding.grow(bytes, Math.max(declared, exchange.received));
    if (answer === 'ok') return true;
    exchange.head = [];
    if (answer === 'client') {
      exchange.overShare(
        `client ${client} holds its share of the local inbox's receive buffer (${budget.limits.perClient} bytes)`,
      );
    } else {
      exchange.rejectAndClose(
        503,
        'local inbox busy: too many envelopes arriving at once',
        BUSY_HEADERS,
      );
    }
    return false;
  };
  // The envelope holds one of its client's slots until its body has ended (taken before its
  // header line was read: ./tunnel.server.ts).
  if (!hold(exchange.received)) return;
  const save = () => {
    holding.arrived();
    const { head } = exchange;
    const envelope = head.length === 1 ? (head[0] as Buffer) : Buffer.concat(head);
    exchange.head = [];
    options.localRate.charge(client, envelope.length);
    // Through a promise, so that a synchronous throw is answered like a rejection.
    Promise.resolve(envelope)
      .then((bytes) => options.storeLocally(bytes, client))
      .then(
        (stored) => {
          const id = stored.eventId ?? eventId;
          exchange.answer(200, JSON.stringify(id ? { id } : {}), 'application/json');
          if (options.debug) options.log(`[tunnel] 200 stored ${envelope.length} bytes locally`);
        },
        (error: unknown) => {
          const code = ingestErrorCode(error);
          if (code === 'rejected') {
            // What Relay would refuse: the client's mistake, with the reason it would give.
            exchange.reject(rejectionStatus(error), errorMessageOf(error));
            return;
          }
          if (code === 'over-share') {
            // The client has its share of the writes waiting: it waits, its reports kept.
            exchange.overShare(errorMessageOf(error));
            return;
          }
          if (code === 'busy') {
            // Too many writes waiting, or one waited too long: overload, answered like a full
            // receive buffer.
            exchange.fail(503, 'local inbox busy: too many envelopes being written', BUSY_HEADERS);
            return;
          }
          // The error names server paths: it goes to the log, not to the client.
          options.log(tunnelLogLine(500, `local inbox failed: ${errorMessageOf(error)}`));
          exchange.answer(500, 'local inbox failed', PLAIN_TEXT);
        },
      );
  };
  if (ended) {
    save();
    return;
  }
  exchange.read(
    (chunk) => {
      if (exchange.answered) return;
      exchange.received += chunk.length;
      if (exchange.received > options.maxBytes) {
        exchange.head = [];
        exchange.rejectAndClose(413, `envelope over ${options.maxBytes} bytes`);
        return;
      }
      if (hold(chunk.length)) exchange.head.push(chunk);
    },
    () => {
      if (!exchange.answered) save();
    },
  );
}
