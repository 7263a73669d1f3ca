/**
 * A transport that exists from `Sentry.init` on, while the transport that really sends (the
 * offline store around fetch) arrives later in a lazily loaded chunk. The SDK fixes its transport
 * at init, and errors are caught from the first script on, so this one stands in: what is sent
 * before the chunk arrives waits here, in order, and is handed over when it does. If the chunk
 * cannot be loaded, the plain fetch transport sends instead. See
 * docs/decisions/0830-tracing-and-offline-store-after-hydration.md.
 *
 * Rate limits and the queue stay where the SDK keeps them, in the one transport that sends
 * (`createTransport` in @sentry/core): every envelope passes through exactly one of them, and
 * nothing is sent before one exists, so no limit is learnt twice or lost. While waiting, at most
 * `bufferSize` envelopes are held, as the SDK's own queue would, and the rest are recorded as
 * `queue_overflow`, as it would.
 */
import {
  type BaseTransportOptions,
  type Envelope,
  envelopeContainsItemType,
  envelopeItemTypeToDataCategory,
  forEachEnvelopeItem,
  type Transport,
  type TransportMakeRequestResponse,
} from '@sentry/core';

export type TransportFactory<Options extends BaseTransportOptions> = (
  options: Options,
) => Transport;

/** The SDK's default queue length, used when the options name none. */
const DEFAULT_WAITING_LIMIT = 64;

/**
 * @param loaded resolves with the factory of the transport that sends; rejects if it cannot be
 *   loaded, and then `fallback` sends.
 * @param fallback made at once (it is cheap), so that it is ready if the chunk never comes. For
 *   the browser's fetch transport that also means it takes the browser's own `fetch` before any
 *   instrumentation wraps it, which the later transport then finds in the SDK's cache.
 */
export function lazyTransport<Options extends BaseTransportOptions>(
  loaded: PromiseLike<TransportFactory<Options>>,
  fallback: TransportFactory<Options>,
): TransportFactory<Options> {
  return (options) => {
    const plain = fallback(options);
    const waitingLimit = options.bufferSize ?? DEFAULT_WAITING_LIMIT;
    let target: Transport | undefined;
    const waiting: Array<(transport: Transport) => void> = [];

    const ready: Promise<Transport> = Promise.resolve(loaded)
      .then((make) => make(options))
      .catch((error: unknown) => {
        console.warn('[monitoring] the offline transport did not load; sending without it', error);
        return plain;
      })
      .then((transport) => {
        target = transport;
        // In the order they were sent, before anything sent from now on.
        for (const handOver of waiting.splice(0)) handOver(transport);
        return transport;
      });

    return {
      send(envelope: Envelope): PromiseLike<TransportMakeRequestResponse> {
        if (target) return target.send(envelope);
        if (waiting.length >= waitingLimit) {
          recordOverflow(options, envelope);
          return Promise.resolve({});
        }
        return new Promise((resolve, reject) => {
          waiting.push((transport) => {
            transport.send(envelope).then(resolve, reject);
          });
        });
      },
      flush(timeout?: number): PromiseLike<boolean> {
        if (target) return target.flush(timeout);
        const flushed = ready.then((transport) => transport.flush(timeout));
        if (!timeout) return flushed;
        return Promise.race([
          flushed,
          new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeout)),
        ]);
      },
    };
  };
}

/** What `createTransport` records for an envelope its full queue refuses. */
function recordOverflow(options: BaseTransportOptions, envelope: Envelope): void {
  // The SDK never reports the loss of its own loss reports.
  if (envelopeContainsItemType(envelope, ['client_report'])) return;
  forEachEnvelopeItem(envelope, ([headers, payload], type) => {
    if (type === 'transaction') {
      const spans = (payload as { spans?: unknown[] }).spans?.length ?? 0;
      options.recordDroppedEvent('queue_overflow', 'span', spans + 1);
    }
    const count = typeof headers.item_count === 'number' ? headers.item_count : 1;
    options.recordDroppedEvent('queue_overflow', envelopeItemTypeToDataCategory(type), count);
  });
}
