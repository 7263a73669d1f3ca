/**
 * How the SDK sends, once loaded: the SDK's own fetch transport (its queue of 64 and its rate
 * limits) inside the SDK's own offline transport (IndexedDB, retried with back-off, when the
 * browser comes back online and when the SDK next starts), with one rule between them that the
 * SDK lacks: an envelope that the tunnel could not take now is kept too, not only one that met a
 * network error. The SDK drops an envelope answered 5xx (the tunnel's 503 under a burst, a 502
 * or 504 when Sentry is away) and one that meets a rate limit's back-off; here both wait in the
 * offline store and are sent once the back-off is over. Decision 0510.
 */
import { makeBrowserOfflineTransport, makeFetchTransport } from '@sentry/browser';
import {
  type Envelope,
  envelopeItemTypeToDataCategory,
  forEachEnvelopeItem,
  isRateLimited,
  type RateLimits,
  type Transport,
  type TransportMakeRequestResponse,
  updateRateLimits,
} from '@sentry/core';
import type { BrowserTransportFactory } from './browser-options';

/**
 * What an answer means for the envelope: `sent`, or `later` when the same envelope may be taken
 * another time (429: rate-limited; 5xx: the tunnel or Sentry busy or away). Any other 4xx is
 * final: sending it again gets the same answer. No status: nothing was sent (the SDK's queue was
 * full, or every item was rate-limited, which `send` below never lets through).
 */
export function deliveryOf(status: number | undefined): 'sent' | 'later' {
  if (status === undefined) return 'sent';
  return status === 429 || status >= 500 ? 'later' : 'sent';
}

/** Thrown to the offline transport: the envelope waits in its store, and is tried again later. */
export class DeliveryDeferred extends Error {
  override name = 'DeliveryDeferred';
}

/** Whether some item of the envelope is in a rate limit's back-off now. */
function isHeldBack(envelope: Envelope, limits: RateLimits, now: number): boolean {
  let held = false;
  forEachEnvelopeItem(envelope, (_item, type) => {
    if (isRateLimited(limits, envelopeItemTypeToDataCategory(type), now)) held = true;
  });
  return held;
}

/**
 * The transport the offline transport wraps: the SDK's fetch transport, with what it would drop
 * or lose turned into an error the offline transport stores. Back-offs are learnt from the same
 * answers, by the same rule (`updateRateLimits`, Retry-After or 60 s), as the fetch transport's.
 */
export function deferringTransport(
  makeInner: BrowserTransportFactory,
  now: () => number = Date.now,
): BrowserTransportFactory {
  return (options) => {
    const inner: Transport = makeInner(options);
    let limits: RateLimits = {};
    return {
      async send(envelope: Envelope): Promise<TransportMakeRequestResponse> {
        if (isHeldBack(envelope, limits, now())) throw new DeliveryDeferred('rate limit back-off');
        // A network error rejects here: the offline transport stores the envelope for that too.
        const response = await inner.send(envelope);
        limits = updateRateLimits(limits, response, now());
        if (deliveryOf(response.statusCode) === 'later') {
          throw new DeliveryDeferred(`the tunnel answered ${response.statusCode}`);
        }
        return response;
      },
      flush: (timeout) => inner.flush(timeout),
    };
  };
}

/** The SDK's transport (browser-options.ts gives it the queue and store sizes). */
export const deliveryTransport: BrowserTransportFactory = makeBrowserOfflineTransport(
  deferringTransport(makeFetchTransport),
);
